// Errors of mbbench. Every exception the library throws derives from mb::Error.
//  - InputError: bad user input (scene, experiment, command line). Names the file, the line and
//    the field; the CLI prints it and exits with code 2.
//  - UnsupportedModel: a method cannot simulate a model (e.g. GC4 on a closed loop); names why.
//  - SimulationError: a run went wrong (non-convergence, singular solve); recorded as the case's
//    failure reason, the sweep goes on.
#pragma once
#include <stdexcept>
#include <string>

namespace mb {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct InputError : Error {
  // file: a path or "command line"; line: 1-based, 0 when there is none
  InputError(std::string file, int line, std::string field, const std::string& message);
  std::string file;
  int line;
  std::string field;
  std::string message;
};

struct UnsupportedModel : Error {
  using Error::Error;
};

struct SimulationError : Error {
  using Error::Error;
};

}  // namespace mb
