// doctest_main.cpp — the one main() of every test binary, compiled once and linked into each.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
