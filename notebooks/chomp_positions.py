"""The reader's former name, kept for notebooks and scripts written against it:
everything is now in the chomp_results package (python/chomp_results)."""

from chomp_results import *  # noqa: F401,F403
from chomp_results import LEVEL_COLUMNS, FORMAT_VERSIONS, data_dir  # noqa: F401
