"""Train the DVE inference-aware evaluator: ``python utils/train_dve_evaluator.py --output evaluator_weights.pth``.

The training code is ``abductive_tasks.dve.training`` (``--help`` lists the options and the paper's defaults).
"""

from abductive_tasks.dve.training import main

if __name__ == "__main__":
    main()
