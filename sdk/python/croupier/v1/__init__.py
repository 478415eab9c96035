"""Generated code: do not edit (make proto)."""
