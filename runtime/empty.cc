// libhvd is built from hvd_runtime_internal whole; CMake needs one source of its own.
