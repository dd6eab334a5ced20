"""The table's rows for the recurrent functions of numgrad.nn.functional."""
ROWS: list = []
