/*
 * cmd_keygen.c - `tvmc keygen -o KEY`: makes an Ed25519 key pair for
 * signing packages: KEY (the secret key, mode 0600) and KEY.pub (the
 * public key, one line; concatenate .pub files into a trusted-keys file
 * for `tvmc run --trusted-keys`).  docs/security.md explains the model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvm/compiler.h"
#include "tvmc.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: tvmc keygen -o KEY\n"
          "  Writes a new Ed25519 key pair: KEY (secret, mode 0600; sign\n"
          "  with tvmc compile --sign KEY) and KEY.pub (public; list it in\n"
          "  the file given to tvmc run --trusted-keys).  Refuses to\n"
          "  overwrite an existing KEY.\n");
}

int tvmc_cmd_keygen(int argc, char **argv) {
  const char *out = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && v) {
      out = v, i++;
    } else {
      fprintf(stderr, "tvmc keygen: unknown or incomplete option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (!out) {
    fprintf(stderr, "tvmc keygen: no -o KEY given\n");
    usage(stderr);
    return 2;
  }
  if (access(out, F_OK) == 0) {
    fprintf(stderr, "tvmc keygen: %s exists; remove it first or choose "
            "another name\n", out);
    return 1;
  }
  size_t n = strlen(out) + 5;
  char *pub = malloc(n);
  if (!pub) return 1;
  snprintf(pub, n, "%s.pub", out);
  int rc = 0;
  if (tvm_keygen(out, pub) != TVM_OK) {
    fprintf(stderr, "tvmc keygen: %s\n", tvm_diag_message());
    rc = 1;
  } else {
    printf("secret key %s\npublic key %s\n", out, pub);
  }
  free(pub);
  return rc;
}
