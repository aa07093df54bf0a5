"""Models as users build them: initializers now; modules, layers and training to come (issue 33)."""
