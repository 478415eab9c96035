"""Generated protocol code: do not edit (make proto)."""
