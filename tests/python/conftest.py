"""pytest setup shared by every suite in tests/python."""
import pytest


def _asan_loaded():
    with open("/proc/self/maps") as maps:
        return "libasan" in maps.read()


def pytest_configure(config):
    config.addinivalue_line("markers", "timing: compares speeds or runs valgrind; skipped under ASan")


def pytest_collection_modifyitems(config, items):
    # `make asan` slows Ember (not torch) several-fold, and valgrind cannot run a process
    # with the ASan runtime preloaded. These tests run in every plain `make test`.
    if not _asan_loaded():
        return
    skip = pytest.mark.skip(reason="speed and valgrind checks do not apply under ASan; `make test` runs them")
    for item in items:
        if "timing" in item.keywords:
            item.add_marker(skip)
