// SPDX-License-Identifier: MIT
/*
 * Two kinds of unsampled lines (t2527). dispatch() is an interpreter's switch: the run
 * only reaches cases 0 and 1, the other cases never run. spread() runs every one of its
 * lines on every call but each line is cheap, so a sampled profile leaves many of them
 * with one sample or none although all of them ran.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned v;

__attribute__((noipa)) static void spread(void)
{
	v = v + 1;
	v = v + 2;
	v = v + 3;
	v = v + 4;
	v = v + 5;
	v = v + 6;
	v = v + 7;
	v = v + 8;
	v = v + 9;
	v = v + 10;
	v = v + 11;
	v = v + 12;
	v = v + 13;
	v = v + 14;
	v = v + 15;
	v = v + 16;
	v = v + 17;
	v = v + 18;
	v = v + 19;
	v = v + 20;
	v = v + 21;
	v = v + 22;
	v = v + 23;
	v = v + 24;
	v = v + 25;
	v = v + 26;
	v = v + 27;
	v = v + 28;
	v = v + 29;
	v = v + 30;
	v = v + 31;
	v = v + 32;
	v = v + 33;
	v = v + 34;
	v = v + 35;
	v = v + 36;
	v = v + 37;
	v = v + 38;
	v = v + 39;
	v = v + 40;
	v = v + 41;
	v = v + 42;
	v = v + 43;
	v = v + 44;
	v = v + 45;
	v = v + 46;
	v = v + 47;
	v = v + 48;
	v = v + 49;
	v = v + 50;
	v = v + 51;
	v = v + 52;
	v = v + 53;
	v = v + 54;
	v = v + 55;
	v = v + 56;
	v = v + 57;
	v = v + 58;
	v = v + 59;
	v = v + 60;
	v = v + 61;
	v = v + 62;
	v = v + 63;
	v = v + 64;
	v = v + 65;
	v = v + 66;
	v = v + 67;
	v = v + 68;
	v = v + 69;
	v = v + 70;
	v = v + 71;
	v = v + 72;
	v = v + 73;
	v = v + 74;
	v = v + 75;
	v = v + 76;
	v = v + 77;
	v = v + 78;
	v = v + 79;
	v = v + 80;
	v = v + 81;
	v = v + 82;
	v = v + 83;
	v = v + 84;
	v = v + 85;
	v = v + 86;
	v = v + 87;
	v = v + 88;
	v = v + 89;
	v = v + 90;
	v = v + 91;
	v = v + 92;
	v = v + 93;
	v = v + 94;
	v = v + 95;
	v = v + 96;
	v = v + 97;
	v = v + 98;
	v = v + 99;
	v = v + 100;
	v = v + 101;
	v = v + 102;
	v = v + 103;
	v = v + 104;
	v = v + 105;
	v = v + 106;
	v = v + 107;
	v = v + 108;
	v = v + 109;
	v = v + 110;
	v = v + 111;
	v = v + 112;
	v = v + 113;
	v = v + 114;
	v = v + 115;
	v = v + 116;
	v = v + 117;
	v = v + 118;
	v = v + 119;
	v = v + 120;
}

__attribute__((noipa)) static unsigned dispatch(int op, unsigned x)
{
	switch (op) {
	case 0:
		x = x * 7 + 1;
		x ^= x >> 5;
		break;
	case 1:
		x = x * 13 + 3;
		x ^= x << 3;
		break;
	case 2:
		x = x / 3 + 11;
		x ^= x >> 7;
		break;
	case 3:
		x = x / 5 + 17;
		x ^= x << 9;
		break;
	case 4:
		x = x / 7 + 19;
		x ^= x >> 11;
		break;
	case 5:
		x = x / 9 + 23;
		x ^= x << 13;
		break;
	case 6:
		x = x / 11 + 29;
		x ^= x >> 2;
		break;
	case 7:
		x = x / 13 + 31;
		x ^= x << 4;
		break;
	case 8:
		x = x / 15 + 37;
		x ^= x >> 6;
		break;
	case 9:
		x = x / 17 + 41;
		x ^= x << 8;
		break;
	case 10:
		x = x / 19 + 43;
		x ^= x >> 10;
		break;
	case 11:
		x = x / 21 + 47;
		x ^= x << 12;
		break;
	default:
		x = x / 23 + 53; /* never runs */
		x ^= x >> 14;
		break;
	}
	return x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, spreads = argc > 2 ? atol(argv[2]) : 20000, i;
	unsigned x = 1;

	for (i = 0; i < n; i++)
		x = dispatch((int)(i & 1), x);
	for (i = 0; i < spreads; i++)
		spread();
	printf("%u %u\n", x, v);
	return 0;
}
