// libhvd is built from the runtime's layer archives (hvd_api, hvd_engine, hvd_comm) whole; CMake needs one
// source of its own.
