// MCPG's selection index (core/engine/decoders/mcpg/search.py's select: UCB1-tuned blended with RAVE) over a state's
// tried actions, and its argmax, as numpy computes them, to the bit.
//
//   index[i] = (1 - beta) * q[i] + beta * (rave[i] if not NaN else q[i])
//              + sqrt(ln n / count[i] * np.minimum(spread[i] + sqrt(2 ln n / count[i]), 1/4))
//   chosen   = np.argmax(index): the first NaN if any, else the first maximum.
//
// Every operation is an IEEE add, multiply, divide, square root, compare or select: four lanes of AVX give the
// same bits as one scalar at a time (the extension is built with -ffp-contract=off, and the AVX path is compiled
// without FMA), so the AVX path runs where the processor has it and the scalar loop elsewhere.

#ifndef PARASTUDIO_MCPG_SELECT_HH
#define PARASTUDIO_MCPG_SELECT_HH

#include <cmath>
#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PARASTUDIO_SELECT_AVX 1
#endif

namespace parastudio {

struct SelectTerms {
  double keep, beta, log_n, two_log_n;  // 1 - beta, beta, ln n, 2 ln n
};

// The state's terms after `visits` visits (search.py's select: ln n is 0 until the second visit).
inline SelectTerms TermsFor(int64_t visits, double exploration) {
  const double n = static_cast<double>(visits);
  const double log_n = visits > 1 ? std::log(n) : 0.0;
  const double beta = std::sqrt(exploration / (3.0 * n + exploration));
  return SelectTerms{1.0 - beta, beta, log_n, 2.0 * log_n};
}

// index[i] for one action (the reference expression, in its order).
inline double SelectIndex(const SelectTerms &t, double count, double spread, double q, double rave) {
  const double q_rave = std::isnan(rave) ? q : rave;
  const double variance = spread + std::sqrt(t.two_log_n / count);
  const double capped = std::isnan(variance) ? variance : (variance < 0.25 ? variance : 0.25);  // np.minimum
  return t.keep * q + t.beta * q_rave + std::sqrt(t.log_n / count * capped);
}

// np.argmax of the index over [from, tried), every index also written to index[i] (the first NaN found
// wins, as numpy's argmax).
inline int32_t ArgmaxScalar(const SelectTerms &t, int32_t from, int32_t tried, const double *count,
                            const double *spread, const double *q, const double *rave, double *index, int32_t chosen,
                            double best) {
  for (int32_t i = from; i < tried; ++i) {
    const double value = SelectIndex(t, count[i], spread[i], q[i], rave[i]);
    index[i] = value;
    if (std::isnan(value)) return i;
    if (value > best) {
      best = value;
      chosen = i;
    }
  }
  return chosen;
}

#ifdef PARASTUDIO_SELECT_AVX
// where ? b : a, lane by lane, by bits (a blendv on a compare's mask is split into scalar branches by GCC
// when only AVX, not AVX2, is enabled).
__attribute__((target("avx"))) inline __m256d Choose(__m256d where, __m256d a, __m256d b) {
  return _mm256_or_pd(_mm256_and_pd(where, b), _mm256_andnot_pd(where, a));
}

// Four actions at a time: each lane keeps its own first maximum, then the lanes' maxima give the first
// maximum overall (the smallest index among the lanes holding the largest value); any NaN sends the answer to
// the first NaN, found in index[].
__attribute__((target("avx"))) inline int32_t ArgmaxAvx(const SelectTerms &t, int32_t tried, const double *count,
                                                         const double *spread, const double *q, const double *rave,
                                                         double *index) {
  if (tried < 4) return ArgmaxScalar(t, 0, tried, count, spread, q, rave, index, 0, -INFINITY);
  const __m256d keep = _mm256_set1_pd(t.keep), beta = _mm256_set1_pd(t.beta), log_n = _mm256_set1_pd(t.log_n),
                two_log_n = _mm256_set1_pd(t.two_log_n), quarter = _mm256_set1_pd(0.25);
  __m256d best = _mm256_set1_pd(-INFINITY), best_at = _mm256_set1_pd(-1.0), nan_seen = _mm256_setzero_pd();
  __m256d at = _mm256_setr_pd(0.0, 1.0, 2.0, 3.0);
  const __m256d four = _mm256_set1_pd(4.0);
  int32_t i = 0;
  for (; i + 4 <= tried; i += 4) {
    const __m256d c = _mm256_loadu_pd(count + i), qi = _mm256_loadu_pd(q + i), r = _mm256_loadu_pd(rave + i);
    const __m256d q_rave = Choose(_mm256_cmp_pd(r, r, _CMP_UNORD_Q), r, qi);
    const __m256d variance = _mm256_add_pd(_mm256_loadu_pd(spread + i), _mm256_sqrt_pd(_mm256_div_pd(two_log_n, c)));
    const __m256d capped = _mm256_min_pd(quarter, variance);  // quarter < v ? quarter : v: NaN stays NaN
    const __m256d value = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(keep, qi), _mm256_mul_pd(beta, q_rave)),
                                        _mm256_sqrt_pd(_mm256_mul_pd(_mm256_div_pd(log_n, c), capped)));
    _mm256_storeu_pd(index + i, value);
    nan_seen = _mm256_or_pd(nan_seen, _mm256_cmp_pd(value, value, _CMP_UNORD_Q));
    const __m256d better = _mm256_cmp_pd(value, best, _CMP_GT_OQ);
    best = Choose(better, best, value);
    best_at = Choose(better, best_at, at);
    at = _mm256_add_pd(at, four);
  }
  if (_mm256_movemask_pd(nan_seen) != 0) {
    for (int32_t j = 0; j < i; ++j)
      if (std::isnan(index[j])) return j;
  }
  double lanes[4], lanes_at[4];
  _mm256_storeu_pd(lanes, best);
  _mm256_storeu_pd(lanes_at, best_at);
  int32_t chosen = 0;
  double top = -INFINITY;
  bool any = false;
  for (int lane = 0; lane < 4; ++lane) {
    if (lanes_at[lane] < 0.0) continue;  // this lane never held a value above -inf
    const int32_t where = static_cast<int32_t>(lanes_at[lane]);
    if (!any || lanes[lane] > top || (lanes[lane] == top && where < chosen)) {
      top = lanes[lane];
      chosen = where;
      any = true;
    }
  }
  if (!any) chosen = 0;  // every value so far is -inf: the reference keeps action 0 unless the tail beats it
  return ArgmaxScalar(t, i, tried, count, spread, q, rave, index, chosen, top);
}

inline bool HasAvx() {
  static const bool has = __builtin_cpu_supports("avx");
  return has;
}
#endif

// The chosen action among `tried` (> 0) tried actions; index is scratch of at least `tried` doubles.
// vectorised false: the scalar loop even where AVX runs (the tests compare both with numpy).
inline int32_t SelectArgmax(const SelectTerms &t, int32_t tried, const double *count, const double *spread,
                            const double *q, const double *rave, double *index, bool vectorised = true) {
#ifdef PARASTUDIO_SELECT_AVX
  if (vectorised && HasAvx()) return ArgmaxAvx(t, tried, count, spread, q, rave, index);
#endif
  // The first action starts the search for the maximum, as np.argmax does.
  if (tried <= 0) return 0;
  const double first = SelectIndex(t, count[0], spread[0], q[0], rave[0]);
  index[0] = first;
  if (std::isnan(first)) return 0;
  return ArgmaxScalar(t, 1, tried, count, spread, q, rave, index, 0, first);
}

}  // namespace parastudio

#endif  // PARASTUDIO_MCPG_SELECT_HH
