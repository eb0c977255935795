// HVD_API marks what libhvd exports: the library is built with hidden visibility, so anything not marked stays
// internal. The same attribute is harmless in users' code, so one definition serves both sides.
#pragma once

#define HVD_API __attribute__((visibility("default")))
