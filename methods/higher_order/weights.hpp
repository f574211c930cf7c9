// Extrapolation weights of the higher-order impulse methods (schmitt2005 s.2).
//
// p_n(h) is n consecutive steps of h/n, each applying the impulse of its sub-interval at the
// sub-interval's middle; for a point mass under F(t) = sum a_i t^i its coefficient of a_i h^(i+2)/m
// is c_{n,i} = sum_{j=1..n} (2(n-j)+1)/(2n) * ((j/n)^(i+1) - ((j-1)/n)^(i+1)) / (i+1), while the
// exact solution has 1/((i+1)(i+2)). The error of the middle-step rule expands in odd powers of
// h only (c_{n,i} - exact for even i >= 2 follows from the odd ones), so the weights w_1..w_k of
// p_{1+...+k} = sum w_n p_n solve the k independent conditions
//   sum_n w_n c_{n,i} = 1/((i+1)(i+2)),  i = 0, 1, 3, 5, ..., 2k - 3
// (i = 0 gives sum w_n = 1); the combination is then exact for every i <= 2k - 2, i.e. up to
// O(h^(2k+1)). (Taking i = 0..k-1 instead gives a singular system for k >= 3.) Solved exactly in
// rational arithmetic (Boost.Multiprecision cpp_rational); tests compare the weights with the
// printed fractions and check the conditions for the even i.
#pragma once
#include <vector>

namespace mb {

// k = 1..5: weights w_1..w_k (Imp2 = k 1, Imp4 = 2, ..., Imp10 = 5).
std::vector<long double> extrapolation_weights(int k);

// c_{n,i} above, for tests.
long double middle_step_coefficient(int n, int i);

}  // namespace mb
