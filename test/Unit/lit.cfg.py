# -*- Python -*-
# Runs the GoogleTest unit tests (executables named *Tests) under lit.

import os

import lit.formats

config.name = "NVFP4-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.nvfp4_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest("bin", "Tests")
