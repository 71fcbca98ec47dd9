/*
 * core/base/editdist.c - Levenshtein distance for "did you mean" hints.
 */
#include <string.h>

#include "tvm/base.h"

/* Insertions, deletions and substitutions needed to turn a into b.  Uses
 * one row of the DP table (on the stack when short).  If memory runs out
 * it returns an upper bound, the longer length.  NULL counts as "". */
size_t tvm_edit_distance(const char *a, const char *b) {
  if (!a) a = "";
  if (!b) b = "";
  size_t la = strlen(a), lb = strlen(b);
  if (la == 0) return lb;
  if (lb == 0) return la;
  size_t small[64];
  size_t *row = lb + 1 <= 64 ? small : tvm_malloc((lb + 1) * sizeof(size_t));
  if (!row) return la > lb ? la : lb;
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  size_t d = row[lb];
  if (row != small) tvm_free(row);
  return d;
}
