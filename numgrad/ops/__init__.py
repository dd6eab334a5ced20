"""The op declarations, by family: each op's math, its VJP and its JVP."""
