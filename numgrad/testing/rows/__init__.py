"""The op table's rows, one module per op family; ``numgrad.testing.table`` puts them in order."""
