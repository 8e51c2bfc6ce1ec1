" Vim syntax file
" Language:  the tile language of tile2cu (.tl)
" Install:   copy syntax/ and ftdetect/ into ~/.vim (or ~/.config/nvim).
" tests/editors/check.sh checks that every keyword, attribute, built-in and
" element type of translator/*.def is in a `syn keyword` or `syn match` here.
if exists("b:current_syntax")
  finish
endif

syn keyword tlConditional   if else
syn keyword tlRepeat        for in range while
syn keyword tlStatement     break continue
syn keyword tlDeclaration   kernel nextgroup=tlKernelName skipwhite
syn keyword tlDeclaration   const var
syn keyword tlBoolean       true false
syn keyword tlConstant      inf
syn keyword tlTileType      tile tensor
syn keyword tlElemType      f32 f16 bf16 f64 i8 u8 i32 u32 i64 bool f8e4m3 f8e5m2
syn keyword tlMath          exp exp2 log log2 sqrt rsqrt abs sin cos tanh sigmoid floor ceil round min max cdiv rand randn randint
syn keyword tlReduction     rowsum rowmax rowmin colsum colmax colmin sum
syn keyword tlReduction     rowargmax rowargmin colargmax colargmin cumsum cumprod cummax
syn keyword tlTileFunc      where rows cols dot transpose reshape pad atomic_add atomic_max atomic_min
syn match   tlKernelName    "\h\w*" contained

syn match   tlCtx           "\<ctx\%(\.\%(threads\|thread\|lanes\|lane\|warps\|warp\|blocks\|block\)\)\=\>"
syn match   tlBadAttribute  "@\h\w*"
syn match   tlAttribute     "@\%(launch\|registers\|grid\|assume\|strided\|pipeline\|unroll\)\>"

syn match   tlNumber        "\<\d[0-9_]*\%(\.[0-9_]*\)\=\%([eE][+-]\=[0-9_]\+\)\=\>"
syn match   tlNumber        "\<0[xX][0-9A-Fa-f_]\+\>"
syn match   tlSlice         ":+"

syn keyword tlTodo          TODO FIXME XXX contained
syn match   tlComment       "//.*$" contains=tlTodo,@Spell
syn region  tlComment       start="/\*" end="\*/" contains=tlTodo,@Spell

hi def link tlConditional   Conditional
hi def link tlRepeat        Repeat
hi def link tlStatement     Statement
hi def link tlDeclaration   StorageClass
hi def link tlKernelName    Function
hi def link tlBoolean       Boolean
hi def link tlConstant      Constant
hi def link tlTileType      Type
hi def link tlElemType      Type
hi def link tlMath          Function
hi def link tlReduction     Function
hi def link tlTileFunc      Function
hi def link tlCtx           Identifier
hi def link tlAttribute     PreProc
hi def link tlBadAttribute  Error
hi def link tlNumber        Number
hi def link tlSlice         Operator
hi def link tlTodo          Todo
hi def link tlComment       Comment

let b:current_syntax = "tile2cu"
