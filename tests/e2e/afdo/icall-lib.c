// SPDX-License-Identifier: MIT
/*
 * Targets of icall.c's indirect calls, in their own translation unit so that the profiled
 * -O2 build calls them through the pointer. hash and rehash are small (well under pgo
 * convert's size threshold); churn is large (over it).
 */
unsigned hash(unsigned x);
unsigned rehash(unsigned x);
unsigned churn(unsigned x);

unsigned hash(unsigned x)
{
	x ^= x >> 15;
	x *= 0x2c1b3c6dU;
	x ^= x >> 12;
	x *= 0x297a2d39U;
	x ^= x >> 15;
	x *= 0x85ebca6bU;
	x ^= x >> 13;
	x *= 0xc2b2ae35U;
	x ^= x >> 16;
	x += 0x9e3779b9U;
	x ^= x << 6;
	x *= 0x27d4eb2fU;
	return x ^ (x >> 15);
}

unsigned rehash(unsigned x)
{
	x *= 0x9e3779b1U;
	x ^= x >> 16;
	x *= 0x85ebca6bU;
	x ^= x >> 13;
	x *= 0xc2b2ae35U;
	x ^= x >> 16;
	x += 0x7feb352dU;
	x ^= x << 5;
	x *= 0x846ca68bU;
	return x ^ (x >> 11);
}
unsigned churn(unsigned x)
{
	unsigned i, r = x;

	for (i = 0; i < 6; i++) {
		r ^= r << 13;
		r ^= r >> 17;
		r ^= r << 5;
		if (r & 1)
			r = r * 0x9e3779b1U + i;
		else if (r & 2)
			r = (r >> 3) ^ 0x85ebca6bU;
		else if (r & 4)
			r = r * 0xc2b2ae35U - x;
		else if (r & 8)
			r += 0x27d4eb2fU ^ (x << i);
		else if (r & 16)
			r = (r << 7) ^ (r >> 25) ^ x;
		else if (r & 32)
			r = r * 0x165667b1U + (x >> i);
		else if (r & 64)
			r = (r >> 5) * 0x8ebc6af1U ^ x;
		else if (r & 128)
			r = (r << 11) + (x ^ 0x7feb352dU);
		else if (r & 256)
			r = r * 0x846ca68bU - (x >> 3);
		else if (r & 512)
			r = (r ^ 0x5bd1e995U) * (x | 1);
		else if (r & 1024)
			r = (r >> 9) ^ (r << 23) ^ (x * 0x1b873593U);
		else if (r & 2048)
			r = (r + 0x68e31da4U) * (x ^ 0xb5297a4dU);
		else if (r & 4096)
			r = (r << 3) ^ (r >> 29) ^ (x + 0x1b56c4e9U);
		else if (r & 8192)
			r = r * 0x7ed55d16U + (x << 12);
		else
			r = ~r ^ (x * 0xd3a2646cU);
		r ^= r >> ((i & 3) + 9);
		r *= 0x2545f491U;
	}
	return r;
}
