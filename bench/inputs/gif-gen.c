/* SPDX-License-Identifier: MIT */
/*
 * Animated GIFs for the gifsicle benchmark (the PGO benchmark), deterministic:
 *   gif-gen KIND WIDTH HEIGHT FRAMES SEED >out.gif
 * KIND plasma: smooth moving colour fields (sums of sines), a 256-colour palette;
 *      sprites: a still background with a few moving, bouncing rectangles and discs,
 *               most pixels unchanged between frames (what frame optimisation removes);
 *      chart:   a scrolling bar chart with grid lines and a noisy line plot, 16 colours.
 * The image data is written as "uncompressed" LZW (9-bit literal codes, a clear code every
 * 250 pixels): valid GIF that any decoder reads, and gifsicle re-encodes it (compression,
 * frame optimisation, colour reduction, resizing are the work being measured).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t seed;

static uint32_t rnd(uint32_t m)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) % m;
}

static void put16(unsigned v)
{
	putchar(v & 255);
	putchar(v >> 8);
}

/* Bit writer for the LZW codes, flushed in sub-blocks of up to 255 bytes. */
static unsigned char blk[255];
static int nblk;
static uint32_t acc;
static int nacc;

static void flush_byte(unsigned char b)
{
	blk[nblk++] = b;
	if (nblk == 255) {
		putchar(255);
		fwrite(blk, 1, 255, stdout);
		nblk = 0;
	}
}

static void code(unsigned c)
{
	acc |= (uint32_t)c << nacc;
	nacc += 9;
	while (nacc >= 8) {
		flush_byte(acc & 255);
		acc >>= 8;
		nacc -= 8;
	}
}

static void image(const unsigned char *px, int w, int h)
{
	long i, n = (long)w * h;

	putchar(0x2c);
	put16(0);
	put16(0);
	put16(w);
	put16(h);
	putchar(0);
	putchar(8); /* minimum code size */
	nblk = 0;
	acc = 0;
	nacc = 0;
	for (i = 0; i < n; i++) {
		if (i % 250 == 0)
			code(256);
		code(px[i]);
	}
	code(257);
	if (nacc > 0)
		flush_byte(acc & 255);
	if (nblk > 0) {
		putchar(nblk);
		fwrite(blk, 1, nblk, stdout);
	}
	putchar(0);
}

static void plasma(unsigned char *px, int w, int h, int f, double a, double b)
{
	int x, y;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			double v = sin(x * a + f * 0.21) + sin(y * b - f * 0.13) +
				   sin((x + y) * 0.5 * a + f * 0.07) + sin(sqrt((double)x * x + (double)y * y) * b);
			px[(long)y * w + x] = (unsigned char)((v + 4.0) * 31.9);
		}
}

struct sprite {
	int x, y, dx, dy, r, col, disc;
};

static void sprites(unsigned char *px, const unsigned char *bg, int w, int h, struct sprite *s, int ns)
{
	int i, x, y;

	memcpy(px, bg, (size_t)w * h);
	for (i = 0; i < ns; i++) {
		for (y = s[i].y - s[i].r; y <= s[i].y + s[i].r; y++)
			for (x = s[i].x - s[i].r; x <= s[i].x + s[i].r; x++) {
				if (x < 0 || y < 0 || x >= w || y >= h)
					continue;
				if (s[i].disc && (x - s[i].x) * (x - s[i].x) + (y - s[i].y) * (y - s[i].y) > s[i].r * s[i].r)
					continue;
				px[(long)y * w + x] = s[i].col;
			}
		s[i].x += s[i].dx;
		s[i].y += s[i].dy;
		if (s[i].x < 0 || s[i].x >= w)
			s[i].dx = -s[i].dx;
		if (s[i].y < 0 || s[i].y >= h)
			s[i].dy = -s[i].dy;
	}
}

static void chart(unsigned char *px, int w, int h, int f, int *vals, int nv)
{
	int x, y, bw = 6;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			int k = (x + f * 2) / bw, v = vals[k % nv];
			unsigned char c = 0;
			if (y % 20 == 0 || (x + f * 2) % 40 == 0)
				c = 1;
			if (h - y < v && (x + f * 2) % bw != 0)
				c = 2 + k % 6;
			if (abs(h - y - (vals[(k + 7) % nv] + vals[(k + 3) % nv]) / 2) < 2)
				c = 12 + (x & 1);
			px[(long)y * w + x] = c;
		}
}

int main(int argc, char **argv)
{
	int w, h, nf, f, i, ns = 0, nv = 0, *vals = NULL;
	unsigned char *px, *bg = NULL;
	struct sprite s[24];
	double a, b;

	if (argc != 6) {
		fprintf(stderr, "usage: gif-gen plasma|sprites|chart WIDTH HEIGHT FRAMES SEED\n");
		return 64;
	}
	w = atoi(argv[2]);
	h = atoi(argv[3]);
	nf = atoi(argv[4]);
	seed = (uint32_t)strtoul(argv[5], NULL, 10);
	if (w <= 0 || h <= 0 || w > 4096 || h > 4096 || nf <= 0) {
		fprintf(stderr, "gif-gen: bad size\n");
		return 64;
	}
	px = malloc((size_t)w * h);
	if (!px)
		return 2;
	fwrite("GIF89a", 1, 6, stdout);
	put16(w);
	put16(h);
	putchar(0xf7); /* global colour table of 256 entries */
	putchar(0);
	putchar(0);
	for (i = 0; i < 256; i++) {
		int r = rnd(256), g = rnd(256), bl = rnd(256);
		if (strcmp(argv[1], "plasma") == 0) {
			r = (int)(127.5 + 127.5 * sin(i * 0.049 + seed % 7));
			g = (int)(127.5 + 127.5 * sin(i * 0.061 + 2.0));
			bl = (int)(127.5 + 127.5 * sin(i * 0.037 + 4.0));
		}
		putchar(r);
		putchar(g);
		putchar(bl);
	}
	/* NETSCAPE2.0 loop extension */
	fwrite("\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00", 1, 19, stdout);
	a = 0.02 + rnd(100) / 2000.0;
	b = 0.02 + rnd(100) / 2000.0;
	if (strcmp(argv[1], "sprites") == 0) {
		bg = malloc((size_t)w * h);
		if (!bg)
			return 2;
		for (i = 0; i < w * h; i++)
			bg[i] = (unsigned char)(((i % w) / 16 + (i / w) / 16) % 2 ? 200 : 201 + rnd(3) / 2);
		ns = 8 + rnd(16);
		for (i = 0; i < ns; i++) {
			s[i].x = rnd(w);
			s[i].y = rnd(h);
			s[i].dx = (int)rnd(9) - 4;
			s[i].dy = (int)rnd(9) - 4;
			s[i].r = 4 + rnd(w / 10 + 1);
			s[i].col = rnd(190);
			s[i].disc = rnd(2);
		}
	} else if (strcmp(argv[1], "chart") == 0) {
		nv = 500;
		vals = malloc(nv * sizeof *vals);
		if (!vals)
			return 2;
		for (i = 0; i < nv; i++)
			vals[i] = h / 8 + rnd(h * 3 / 4);
	} else if (strcmp(argv[1], "plasma") != 0) {
		fprintf(stderr, "gif-gen: unknown kind '%s'\n", argv[1]);
		return 64;
	}
	for (f = 0; f < nf; f++) {
		/* graphic control extension: 4/100 s delay */
		fwrite("\x21\xf9\x04\x00\x04\x00\x00\x00", 1, 8, stdout);
		if (bg)
			sprites(px, bg, w, h, s, ns);
		else if (vals)
			chart(px, w, h, f, vals, nv);
		else
			plasma(px, w, h, f, a, b);
		image(px, w, h);
	}
	putchar(0x3b);
	free(px);
	free(bg);
	free(vals);
	return fflush(stdout) == 0 ? 0 : 2;
}
