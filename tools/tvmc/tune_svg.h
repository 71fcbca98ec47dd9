/*
 * tools/tvmc/tune_svg.h - tuning curves as an SVG file (tune_svg.c): one
 * panel per task, one polyline per tuner (best GFLOP/s after each
 * measurement).
 */
#ifndef TVMC_TUNE_SVG_H
#define TVMC_TUNE_SVG_H

typedef struct tvmc_svg_curve {
  const char *name;
  const double *y;
  int n;
} tvmc_svg_curve;

typedef struct tvmc_svg_panel {
  char title[160];
  tvmc_svg_curve curves[3];
  int ncurves;
} tvmc_svg_panel;

/* Writes the panels to path; 0 on success. */
int tvmc_svg_write(const char *path, const tvmc_svg_panel *p, int n,
                   const char *caption);

#endif
