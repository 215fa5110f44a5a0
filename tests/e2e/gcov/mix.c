long blend(long x)
{
	long s = 1;

	for (int j = 0; j < 32; j++)
		s += (x + j) * (j | 3);
	return s;
}
