// SPDX-License-Identifier: MIT
// C++ for pgo convert (t2570): mangled names, a virtual call with two targets (Square's
// area 6 times in 8 and twice as long), a template inlined into main, a lambda kept
// out of line, whose operator() has no DW_AT_decl_line of its own, and a constructor and
// a destructor with loops, inlined into tables() and flushes().
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace geo {

struct Shape {
	explicit Shape(double s) : scale(s) {}
	virtual ~Shape() = default;
	virtual double area(double x) const = 0;
	double scale;
};

struct Square : Shape {
	explicit Square(double s) : Shape(s) {}
	double area(double x) const override
	{
		double r = 0;
		for (int i = 0; i < 32; i++)
			r += (x + i) * (x + i) * scale;
		return r;
	}
};

struct Circle : Shape {
	explicit Circle(double s) : Shape(s) {}
	double area(double x) const override
	{
		double r = 0;
		for (int i = 0; i < 16; i++)
			r += 3.14159 * (x - i) * (x - i) * scale;
		return r;
	}
};

template <typename T> T clamp_sum(const std::vector<T> &v, T lo, T hi)
{
	T s = 0;
	for (const T &e : v)
		s += e < lo ? lo : e > hi ? hi : e;
	return s;
}

struct Table {
	explicit Table(long n)
	{
		double s = 0;
		for (long i = 0; i < n; i++)
			s += (double)(i % 7) * 0.5 + (double)(i % 5);
		sum = s;
	}
	double sum;
};

static volatile double sink;

struct Flush {
	explicit Flush(long n) : n(n) {}
	~Flush()
	{
		double s = 0;
		for (long i = 0; i < n; i++)
			s += (double)(i % 11) * 0.25 + (double)(i % 3);
		sink = s;
	}
	long n;
};

} // namespace geo

__attribute__((noinline)) double
tables(long n)
{
	double t = 0;
	for (long r = 0; r < n; r++) {
		geo::Table a(2000 + (r & 7));
		t += a.sum;
	}
	return t;
}

__attribute__((noinline)) double
total(const std::vector<std::unique_ptr<geo::Shape>> &shapes, long n)
{
	double acc = 0;
	for (long i = 0; i < n; i++) {
		const geo::Shape &s = *shapes[i % shapes.size()];
		acc += s.area((double)(i & 1023));
	}
	return acc;
}

__attribute__((noinline)) void
flushes(long n)
{
	for (long r = 0; r < n; r++)
		geo::Flush f(2000 + (r & 7));
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	std::vector<std::unique_ptr<geo::Shape>> shapes;
	for (int i = 0; i < 8; i++) {
		if (i % 4 == 3)
			shapes.push_back(std::make_unique<geo::Circle>(1.0 + i));
		else
			shapes.push_back(std::make_unique<geo::Square>(1.0 + i));
	}
	std::vector<double> v(4096);
	auto fill = [&v](double k) __attribute__((noinline)) {
		for (size_t i = 0; i < v.size(); i++)
			v[i] = (double)(i % 97) * k + (double)(i % 13) / (k + 1);
	};
	double c = 0;
	for (long r = 0; r < n / 2000; r++) {
		fill(r * 0.5);
		c += geo::clamp_sum(v, 3.0, 40.0);
	}
	printf("%.1f %.1f %.1f\n", total(shapes, n), c, tables(n / 500));
	flushes(n / 500);
	return 0;
}
