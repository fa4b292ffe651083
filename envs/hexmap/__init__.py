"""Hex maps shared by the hex games: axial geometry (``grid``), precomputed cell tables (``cells``) and the
pictures' drawing helpers (``picture``: Pillow, imported by the rgb_array renderers only).

Pointy-top hexes in "odd-r" offset rows (odd rows shoved right), named column letter + row number (``A1`` top
left); a cell of a ``width`` x ``height`` map is ``row * width + col``. ``grid`` and ``cells`` are pure Python;
nothing here holds game rules.
"""
