/*
 * tools/tvmc/tune_svg.c - tuning curves as SVG: a grid of panels (three
 * per row), each with its axes (measurements, GFLOP/s from 0 to the
 * panel's best), one step polyline per tuner and a legend.
 */
#include <stdio.h>

#include "tune_svg.h"

enum { PW = 360, PH = 240, COLS = 3, ML = 50, MB = 30, MT = 28, MR = 12 };

static const char *const colors[] = {"#d62728", "#1f77b4", "#2ca02c"};

/* Writes s with the XML special characters escaped. */
static void xml(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '<') fputs("&lt;", f);
    else if (*s == '>') fputs("&gt;", f);
    else if (*s == '&') fputs("&amp;", f);
    else fputc(*s, f);
  }
}

static void panel(FILE *f, const tvmc_svg_panel *p, int x0, int y0) {
  double ymax = 0;
  int xmax = 1;
  for (int c = 0; c < p->ncurves; c++)
    for (int i = 0; i < p->curves[c].n; i++) {
      if (p->curves[c].y[i] > ymax) ymax = p->curves[c].y[i];
      if (i + 1 > xmax) xmax = i + 1;
    }
  if (ymax <= 0) ymax = 1;
  int w = PW - ML - MR, h = PH - MT - MB;
  fprintf(f, "<g transform=\"translate(%d,%d)\">\n", x0, y0);
  fprintf(f, "<text x=\"%d\" y=\"16\" font-size=\"12\">", ML);
  xml(f, p->title);
  fprintf(f, "</text>\n");
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
             "fill=\"none\" stroke=\"#888\"/>\n", ML, MT, w, h);
  for (int k = 0; k <= 4; k++) {
    double v = ymax * k / 4;
    int yy = MT + h - (int)(h * k / 4);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" "
               "text-anchor=\"end\">%.0f</text>\n", ML - 3, yy + 3, v);
  }
  fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\">0</text>", ML, PH - 14);
  fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" text-anchor=\"end\">"
             "%d</text>\n", ML + w, PH - 14, xmax);
  for (int c = 0; c < p->ncurves; c++) {
    const tvmc_svg_curve *cv = &p->curves[c];
    if (cv->n == 0) continue;
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
               "points=\"", colors[c % 3]);
    for (int i = 0; i < cv->n; i++) {
      double xa = ML + (double)w * i / xmax, xb = ML + (double)w * (i + 1) / xmax;
      double yy = MT + h - h * cv->y[i] / ymax;
      fprintf(f, "%.1f,%.1f %.1f,%.1f ", xa, yy, xb, yy);
    }
    fprintf(f, "\"/>\n");
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"%s\">",
            ML + w - 60, MT + h - 8 - 12 * c, colors[c % 3]);
    xml(f, cv->name ? cv->name : "?");
    fprintf(f, "</text>\n");
  }
  fprintf(f, "</g>\n");
}

int tvmc_svg_write(const char *path, const tvmc_svg_panel *p, int n,
                   const char *caption) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int rows = (n + COLS - 1) / COLS;
  int W = PW * (n < COLS ? (n > 0 ? n : 1) : COLS), H = PH * rows + 24;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
             "height=\"%d\" font-family=\"sans-serif\">\n", W, H);
  fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  fprintf(f, "<text x=\"8\" y=\"16\" font-size=\"13\">");
  xml(f, caption);
  fprintf(f, "</text>\n");
  for (int i = 0; i < n; i++)
    panel(f, &p[i], (i % COLS) * PW, 24 + (i / COLS) * PH);
  fputs("</svg>\n", f);
  return fclose(f) == 0 ? 0 : -1;
}
