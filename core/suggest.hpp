// Did-you-mean for names a user types (subcommands, options, methods, models, option choices).
#pragma once
#include <string>
#include <vector>

namespace mb {

// The candidate the user most likely meant by `word`: the one equal to it ignoring case, else the
// one nearest in edit distance (insertions, deletions, substitutions, adjacent swaps; case
// ignored) when that distance is at most a third of the word's length (at least 1) and no other
// candidate is as near. Empty when there is none.
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates);

// "; did you mean 'X'?" for closest_name's answer, empty when there is none.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

// The one candidate equal to `word` ignoring case, empty when none or several are.
std::string case_insensitive_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace mb
