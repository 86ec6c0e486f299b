"""Sherlock (Hessel et al., ECCV 2022): retrieval, localization and comparison over (image, region, inference) scores.

The task YAML (``yaml_tasks/sherlock``) names its hooks ``abductive_tasks.sherlock.<function>``;
they live in :mod:`abductive_tasks.sherlock.hooks` (with one aggregation per metric name) and are re-exported here.
"""

from abductive_tasks.sherlock.hooks import *  # noqa: F403
