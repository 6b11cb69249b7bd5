//===- ReferenceRuntimeErrors.h - Invalid calls, reported -------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Internal to libnvfp4_reference_runtime (ReferenceRuntime.cpp,
// ReferenceRuntimeInputs.cpp): how its entry points report an invalid call
// (MemRefArguments.h's reportInvalid under the library's name).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EXECUTIONENGINE_REFERENCERUNTIMEERRORS_H
#define NVFP4_LIB_EXECUTIONENGINE_REFERENCERUNTIMEERRORS_H

#include "MemRefArguments.h"

#include <cstdlib>
#include <string>

namespace nvfp4::runtime::reference {

/// Reports an invalid call of `entry` on stderr.
inline void reportInvalid(const char *entry, const std::string &message) {
  nvfp4::runtime::reportInvalid("nvfp4-reference-runtime", entry, message);
}

/// Reports an invalid call of an entry point without an error channel and
/// ends the process.
[[noreturn]] inline void failInvalid(const char *entry,
                                     const std::string &message) {
  reportInvalid(entry, message);
  std::exit(EXIT_FAILURE);
}

} // namespace nvfp4::runtime::reference

#endif // NVFP4_LIB_EXECUTIONENGINE_REFERENCERUNTIMEERRORS_H
