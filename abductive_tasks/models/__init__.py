"""lmms-eval model backends of this package; registered through :mod:`abductive_tasks.models.manifests`."""
