// Element-wise kernels over strided views: fill, copy with dtype conversion,
// unary and binary op families, comparisons and where. Every kernel takes the
// element count n and a device array meta describing shape and strides (see
// agx_offsets); operand pointers already include the view offsets. Op codes are
// the tensor package's UnaryOp/BinaryOp values.

#define AGX_DTYPES(X) X(f32, float) X(f64, double) X(i64, i64) X(b8, bool)

// --- fill ---
#define AGX_FILL(t, T)                                                            \
	extern "C" __global__ void fill_##t(i64 n, const i64* meta, T* dst, double v) { \
		AGX_GRID_LOOP(i, n) {                                                     \
			i64 o[1];                                                             \
			agx_offsets<1>(i, meta, o);                                           \
			dst[o[0]] = (T)v;                                                     \
		}                                                                         \
	}                                                                             \
	AGX_EXPORT(fill_##t)
AGX_DTYPES(AGX_FILL)

// --- fill_words: n 8-byte words of a contiguous block set to bits (the
// backend zeroes a reused memory block with it, or poisons one with NaN) ---
extern "C" __global__ void fill_words(i64 n, unsigned long long* dst, unsigned long long bits) {
	AGX_GRID_LOOP(i, n) { dst[i] = bits; }
}

// --- copy / cast: cast_<src>_<dst> ---
#define AGX_CAST(s, S, d, D)                                                                     \
	extern "C" __global__ void cast_##s##_##d(i64 n, const i64* meta, D* dst, const S* src) { \
		AGX_GRID_LOOP(i, n) {                                                                    \
			i64 o[2];                                                                            \
			agx_offsets<2>(i, meta, o);                                                          \
			dst[o[0]] = (D)src[o[1]];                                                            \
		}                                                                                        \
	}                                                                                            \
	AGX_EXPORT(cast_##s##_##d)
#define AGX_CAST_TO_F32(s, S) AGX_CAST(s, S, f32, float)
#define AGX_CAST_TO_F64(s, S) AGX_CAST(s, S, f64, double)
#define AGX_CAST_TO_I64(s, S) AGX_CAST(s, S, i64, i64)
#define AGX_CAST_TO_B8(s, S) AGX_CAST(s, S, b8, bool)
AGX_DTYPES(AGX_CAST_TO_F32)
AGX_DTYPES(AGX_CAST_TO_F64)
AGX_DTYPES(AGX_CAST_TO_I64)
AGX_DTYPES(AGX_CAST_TO_B8)

// --- unary ---
enum {
	AGX_NEG = 1, AGX_EXP, AGX_LOG, AGX_LOG1P, AGX_SQRT, AGX_RSQRT, AGX_ABS, AGX_SIGN,
	AGX_ROUND, AGX_FLOOR, AGX_CEIL, AGX_SIGMOID, AGX_TANH, AGX_RELU, AGX_ERF, AGX_NOT,
	AGX_POW_SCALAR, AGX_CLAMP, AGX_EXPM1, AGX_SIN, AGX_COS
};

template <typename T>
__device__ inline T agx_unary_float(int op, T x, double a0, double a1) {
	switch (op) {
	case AGX_NEG: return -x;
	case AGX_EXP: return exp(x);
	case AGX_LOG: return log(x);
	case AGX_LOG1P: return log1p(x);
	case AGX_SQRT: return sqrt(x);
	case AGX_RSQRT: return (T)1 / sqrt(x);
	case AGX_ABS: return fabs(x);
	case AGX_SIGN: return x > 0 ? (T)1 : (x < 0 ? (T)-1 : x);
	case AGX_ROUND: return rint(x);
	case AGX_FLOOR: return floor(x);
	case AGX_CEIL: return ceil(x);
	case AGX_SIGMOID: return (T)1 / ((T)1 + exp(-x));
	case AGX_TANH: return tanh(x);
	case AGX_RELU: return (x > 0 || agx_isnan(x)) ? x : (T)0;
	case AGX_ERF: return erf(x);
	case AGX_EXPM1: return expm1(x);
	case AGX_SIN: return sin(x);
	case AGX_COS: return cos(x);
	case AGX_POW_SCALAR:
		if (a0 == 2) return x * x;
		if (a0 == 3) return x * x * x;
		if (a0 == 0) return (T)1;
		return pow(x, (T)a0);
	case AGX_CLAMP:
		if (x < a0) x = (T)a0;
		if (x > a1) x = (T)a1;
		return x;
	}
	return x;
}

__device__ inline float agx_unary(int op, float x, double a0, double a1) { return agx_unary_float<float>(op, x, a0, a1); }
__device__ inline double agx_unary(int op, double x, double a0, double a1) { return agx_unary_float<double>(op, x, a0, a1); }

__device__ inline i64 agx_ipow(i64 x, i64 e) {
	if (e < 0) return (x == 1) ? 1 : (x == -1 ? ((e & 1) ? -1 : 1) : 0);
	i64 r = 1;
	while (e > 0) {
		if (e & 1) r *= x;
		x *= x;
		e >>= 1;
	}
	return r;
}

__device__ inline i64 agx_unary(int op, i64 x, double a0, double a1) {
	switch (op) {
	case AGX_NEG: return -x;
	case AGX_ABS: return x < 0 ? -x : x;
	case AGX_SIGN: return x > 0 ? 1 : (x < 0 ? -1 : 0);
	case AGX_RELU: return x > 0 ? x : 0;
	case AGX_POW_SCALAR: return agx_ipow(x, (i64)a0);
	case AGX_CLAMP:
		// Integer bounds: the smallest integer >= lo, the largest <= hi.
		if (x < a0) x = (i64)ceil(a0);
		if (x > a1) x = (i64)floor(a1);
		return x;
	}
	return x; // round, floor, ceil: identity on integers
}

__device__ inline bool agx_unary(int op, bool x, double, double) { return op == AGX_NOT ? !x : x; }

#define AGX_UNARY(t, T)                                                                                       \
	extern "C" __global__ void unary_##t(i64 n, const i64* meta, T* dst, const T* src, int op, double a0, double a1) { \
		AGX_GRID_LOOP(i, n) {                                                                                 \
			i64 o[2];                                                                                         \
			agx_offsets<2>(i, meta, o);                                                                       \
			dst[o[0]] = agx_unary(op, src[o[1]], a0, a1);                                                     \
		}                                                                                                     \
	}                                                                                                         \
	AGX_EXPORT(unary_##t)
AGX_DTYPES(AGX_UNARY)

// --- binary ---
enum {
	AGX_ADD = 1, AGX_SUB, AGX_MUL, AGX_DIV, AGX_POW, AGX_MAXIMUM, AGX_MINIMUM,
	AGX_EQ, AGX_NE, AGX_LT, AGX_LE, AGX_GT, AGX_GE, AGX_AND, AGX_OR, AGX_XOR
};

template <typename T>
__device__ inline T agx_binary_float(int op, T a, T b) {
	switch (op) {
	case AGX_ADD: return a + b;
	case AGX_SUB: return a - b;
	case AGX_MUL: return a * b;
	case AGX_DIV: return a / b;
	case AGX_POW: return pow(a, b);
	case AGX_MAXIMUM: return (agx_isnan(a) || agx_isnan(b)) ? a + b : (a > b ? a : b);
	case AGX_MINIMUM: return (agx_isnan(a) || agx_isnan(b)) ? a + b : (a < b ? a : b);
	}
	return a;
}

__device__ inline float agx_binary(int op, float a, float b) { return agx_binary_float<float>(op, a, b); }
__device__ inline double agx_binary(int op, double a, double b) { return agx_binary_float<double>(op, a, b); }

__device__ inline i64 agx_binary(int op, i64 a, i64 b) {
	switch (op) {
	case AGX_ADD: return a + b;
	case AGX_SUB: return a - b;
	case AGX_MUL: return a * b;
	case AGX_DIV: return b == 0 ? 0 : a / b;
	case AGX_POW: return agx_ipow(a, b);
	case AGX_MAXIMUM: return a > b ? a : b;
	case AGX_MINIMUM: return a < b ? a : b;
	}
	return a;
}

__device__ inline bool agx_binary(int op, bool a, bool b) {
	switch (op) {
	case AGX_AND: return a && b;
	case AGX_OR: return a || b;
	case AGX_XOR: return a != b;
	}
	return a;
}

#define AGX_BINARY(t, T)                                                                                 \
	extern "C" __global__ void binary_##t(i64 n, const i64* meta, T* dst, const T* a, const T* b, int op) { \
		AGX_GRID_LOOP(i, n) {                                                                            \
			i64 o[3];                                                                                    \
			agx_offsets<3>(i, meta, o);                                                                  \
			dst[o[0]] = agx_binary(op, a[o[1]], b[o[2]]);                                                \
		}                                                                                                \
	}                                                                                                    \
	AGX_EXPORT(binary_##t)
AGX_DTYPES(AGX_BINARY)

template <typename T>
__device__ inline bool agx_compare(int op, T a, T b) {
	switch (op) {
	case AGX_EQ: return a == b;
	case AGX_NE: return a != b;
	case AGX_LT: return a < b;
	case AGX_LE: return a <= b;
	case AGX_GT: return a > b;
	case AGX_GE: return a >= b;
	}
	return false;
}

#define AGX_COMPARE(t, T)                                                                                    \
	extern "C" __global__ void compare_##t(i64 n, const i64* meta, bool* dst, const T* a, const T* b, int op) { \
		AGX_GRID_LOOP(i, n) {                                                                                \
			i64 o[3];                                                                                        \
			agx_offsets<3>(i, meta, o);                                                                      \
			dst[o[0]] = agx_compare<T>(op, a[o[1]], b[o[2]]);                                                \
		}                                                                                                    \
	}                                                                                                        \
	AGX_EXPORT(compare_##t)
AGX_DTYPES(AGX_COMPARE)

// --- where ---
#define AGX_WHERE(t, T)                                                                                         \
	extern "C" __global__ void where_##t(i64 n, const i64* meta, T* dst, const bool* c, const T* a, const T* b) { \
		AGX_GRID_LOOP(i, n) {                                                                                   \
			i64 o[4];                                                                                           \
			agx_offsets<4>(i, meta, o);                                                                         \
			dst[o[0]] = c[o[1]] ? a[o[2]] : b[o[3]];                                                            \
		}                                                                                                       \
	}                                                                                                           \
	AGX_EXPORT(where_##t)
AGX_DTYPES(AGX_WHERE)
