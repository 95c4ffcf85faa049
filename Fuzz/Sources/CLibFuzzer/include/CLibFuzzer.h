#pragma once
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for a program with a `main` of its own (compiler-rt's FuzzerInterface.h).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
