// SPDX-License-Identifier: MIT
/*
 * Small targets of icall.c's indirect calls (well under pgo convert's size threshold), in
 * their own translation unit so that the profiled -O2 build calls them through the pointer.
 */
unsigned hash(unsigned x);
unsigned rehash(unsigned x);

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
