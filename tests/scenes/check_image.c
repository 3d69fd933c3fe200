/* tests/scenes/check_image: a rendered screenshot is not trivial.
 * usage: check_image FILE.png WIDTH HEIGHT
 * Checks the size, that the image has many distinct colours (>= 200) and that
 * no single colour covers more than 90% of it (not blank, not a flat clear). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>

static int compare_u32(const void *a, const void *b)
{
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  if (argc != 4) {
    fprintf(stderr, "usage: check_image FILE.png WIDTH HEIGHT\n");
    return 2;
  }
  int w, h, c;
  unsigned char *px = stbi_load(argv[1], &w, &h, &c, 3);
  if (!px) {
    fprintf(stderr, "check_image: cannot decode %s\n", argv[1]);
    printf("0 passed, 1 failed\n");
    return 1;
  }
  int failures = 0;
  if (w != atoi(argv[2]) || h != atoi(argv[3])) {
    fprintf(stderr, "check_image: size %dx%d, expected %sx%s\n", w, h, argv[2], argv[3]);
    failures++;
  }
  size_t n = (size_t)w * h;
  unsigned *colors = malloc(n * sizeof *colors);
  for (size_t i = 0; i < n; i++) colors[i] = (unsigned)px[3 * i] << 16 | (unsigned)px[3 * i + 1] << 8 | px[3 * i + 2];
  qsort(colors, n, sizeof *colors, compare_u32);
  size_t distinct = 0, run = 0, longest = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || colors[i] != colors[i - 1]) {
      distinct++;
      run = 0;
    }
    if (++run > longest) longest = run;
  }
  if (distinct < 200) {
    fprintf(stderr, "check_image: only %zu distinct colours\n", distinct);
    failures++;
  }
  if ((double)longest > 0.9 * (double)n) {
    fprintf(stderr, "check_image: one colour covers %.0f%% of the image\n", 100.0 * longest / n);
    failures++;
  }
  printf("check_image: %dx%d, %zu colours, largest share %.1f%%\n", w, h, distinct, 100.0 * longest / n);
  free(colors);
  stbi_image_free(px);
  printf("%d passed, %d failed\n", failures ? 0 : 1, failures ? 1 : 0);
  return failures ? 1 : 0;
}
