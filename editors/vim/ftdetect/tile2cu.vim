" tile2cu: .tl files are the tile language.
autocmd BufRead,BufNewFile *.tl setfiletype tile2cu
