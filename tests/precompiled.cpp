// Compiles the tests' precompiled headers (tests/CMakeLists.txt); it has no code of its own.
