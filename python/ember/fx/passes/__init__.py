"""Standard passes over GraphModules. Each returns a new GraphModule (or data) and leaves its
input untouched, also when it fails."""
from .shape_prop import ShapeProp, TensorMetadata  # noqa: F401
from .fuse import fuse  # noqa: F401
from .cse import cse  # noqa: F401
from .dce import dead_code_elimination  # noqa: F401
from .const_fold import const_fold  # noqa: F401
from .split_module import split_module  # noqa: F401
from .operator_list import export_operator_list, operator_list  # noqa: F401

__all__ = ["ShapeProp", "TensorMetadata", "fuse", "cse", "dead_code_elimination", "const_fold", "split_module",
           "operator_list", "export_operator_list"]
