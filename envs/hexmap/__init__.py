"""Hex maps shared by the hex games: axial geometry (``grid``) and precomputed cell tables (``cells``).

Pointy-top hexes in "odd-r" offset rows (odd rows shoved right), named column letter + row number (``A1`` top
left); a cell of a ``width`` x ``height`` map is ``row * width + col``. Pure Python, no game rules.
"""
