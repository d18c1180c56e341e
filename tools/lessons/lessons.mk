# tools/lessons/lessons.mk: the lessons' tools (python3 -m tools.lessons), included by the top-level Makefile.
#
#   make traffic M=55 K=48 N=43 TILE=16   grid, phases, bytes read and written, FLOPs, intensity (naive vs tiled)
#        LAB=5 instead of TILE            the same for that lab's block tile and register tiles (labs 2-6)
#        LAB=6 SPLIT=8 SMS=132 PER_SM=2   ... with K split 8 ways, and the waves on a GPU of 132 multiprocessors
#        LAB=4 BK=4 TM=16                 ... with lab.h's constants changed (BM BN BK TM TN WM WN WMITER ...)
#   make trace M=4 K=4 N=4 TILE=2 [BLOCK=x,y]   the tiled algorithm phase by phase for one block (default 0,0)
#   make heatmap LAB=3 [KERNEL=file] [M=.. K=.. N=..]   SVG maps of per-element reads and writers, in build/heatmap/,
#                                         which launched blocks wrote nothing, and the emulator's findings (a race)
#   make coalescing LAB=1 [KERNEL=file] [M=.. K=.. N=..]   which lanes of a warp share a 32-byte sector (global) or
#                                         meet in a bank (shared), for the first request of each load and store line
#   make answers [LAB=3]                  check labs/<lab>/answers.txt against the lesson's exercises
#        ANSWERS=file                     (with LAB) check another answers file
#        REVEAL=1                         the answers to the wrong exercises (the lesson's section for a wrong
#                                         question) now, not a hint first
#   make tf32 K=1024 [TRIALS=100] [SEED=1]   TF32's errors on random dot products of length K: float inputs,
#                                         inputs rounded to TF32 and truncated, against the tests' tolerance
#   make mma [ROW=5 COL=6]                mma.sync's fragments lane by lane (which lane holds A, B, C[ROW][COL]),
#                                         lab 8's swizzle of the chunks and the bank conflicts it removes

LESSON := $(PYTHON) -m tools.lessons

.PHONY: traffic trace heatmap coalescing answers tf32 mma

traffic:
	@$(LESSON) traffic M=$(M) K=$(K) N=$(N) TILE=$(TILE) LAB=$(LAB) SPLIT=$(SPLIT) SMS=$(SMS) PER_SM=$(PER_SM) \
	  BM=$(BM) BN=$(BN) BK=$(BK) TM=$(TM) TN=$(TN) WM=$(WM) WN=$(WN) WMITER=$(WMITER) WNITER=$(WNITER) \
	  STAGES=$(STAGES) TILE_WIDTH=$(TILE_WIDTH)

trace:
	@$(LESSON) trace M=$(M) K=$(K) N=$(N) TILE=$(TILE) BLOCK=$(BLOCK)

heatmap:
	@$(LESSON) heatmap LAB=$(LAB) KERNEL=$(KERNEL) M=$(M) K=$(K) N=$(N)

coalescing:
	@$(LESSON) coalescing LAB=$(LAB) KERNEL=$(KERNEL) M=$(M) K=$(K) N=$(N)

# exit status 1 (not every answer right yet) is the report's news, not make's error: only a usage error (2) fails
answers:
	@$(LESSON) answers LAB=$(LAB) ANSWERS=$(ANSWERS) REVEAL=$(REVEAL) || [ $$? -eq 1 ]

tf32:
	@$(LESSON) tf32 K=$(K) TRIALS=$(TRIALS) SEED=$(SEED)

mma:
	@$(LESSON) mma ROW=$(ROW) COL=$(COL)
