// Extrapolation weights of the higher-order impulse methods (schmitt2005 s.2).
//
// p_n(h) is n consecutive steps of h/n, each applying the impulse of its sub-interval at the
// sub-interval's middle; for a point mass under F(t) = sum a_i t^i its coefficient of a_i h^(i+2)/m
// is c_{n,i} = sum_{j=1..n} (2(n-j)+1)/(2n) * ((j/n)^(i+1) - ((j-1)/n)^(i+1)) / (i+1), while the
// exact solution has 1/((i+1)(i+2)). The weights w_1..w_k of p_{1+...+k} = sum w_n p_n solve
//   sum_n w_n c_{n,i} = 1/((i+1)(i+2)),  i = 0..k-1
// (i = 0 gives sum w_n = 1), so the combination is exact up to O(h^(2k+1)). Solved in long double
// by Gaussian elimination with partial pivoting; tests compare them with the printed fractions.
#pragma once
#include <vector>

namespace mb {

// k = 1..5: weights w_1..w_k (Imp2 = k 1, Imp4 = 2, ..., Imp10 = 5).
std::vector<long double> extrapolation_weights(int k);

// c_{n,i} above, for tests.
long double middle_step_coefficient(int n, int i);

}  // namespace mb
