"""The old address of `workbench.core.editing.docmerge`, kept runnable:
git clones set up before the core's layers became folders run the merge driver as
`python -m workbench.core.docmerge`."""

import runpy

if __name__ == "__main__":
    runpy.run_module("workbench.core.editing.docmerge", run_name="__main__", alter_sys=True)
