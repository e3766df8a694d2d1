;; The ranking sort: tie blocks of "flagged keys" — non-negative float32 or float64 keys whose
;; sign bit carries a 0/1 flag (set = loss 1), as ranking metrics store (confidence, correct).
;;
;; The key's bits without the sign bit order like the key (a non-negative float's bits order like
;; the float, and ±0 both become 0). An LSD radix sort on those bits (11-bit digits, the sign bit
;; masked off; a digit equal for every key is skipped) puts equal keys next to each other, flags
;; in any order, and one pass from the top reads the blocks: each block's size and loss count (the
;; number of set flags), written out or folded at once into a ranking value (AUC, AURC, AUGRC,
;; FPR at a recall) with exactly the float64 operations, in exactly the order, of the JS functions
;; in ../ranking.ts. Integer operations elsewhere: the blocks are exactly what any correct sort gives.
;;
;; Every pass is split into calls over chunks of keys, driven by sortKernel.ts: V8 first runs
;; wasm through its baseline compiler and switches to optimized code only for later calls (there
;; is no on-stack replacement in wasm), so one call over millions of keys would run unoptimized.
;; Chunks are processed in order (a pass stays stable); the histograms and the open block carry
;; over from call to call.
;;
;; Memory: [0, 49152) the working digit histograms (6 × 2048 u32); [49152, 98304) a column's
;; digit counts, kept up to date as keys are added (see sortKernel.ts: a column of keys may live in
;; an instance of its own); 98304 the column's count of set flags (u32); [98312, 98344) the fold's
;; results (4 × f64); [98368, 131136) flags of a batch being packed; [131136, 131192) the sweep
;; fold's results (7 × f64); keys from 196608 on.
;; Regenerate the embedded bytes with `node scripts/build-wasm.mjs`.
(module
  (memory (export "memory") 3)

  ;; the blocks pass between calls: the open block's key, length (0: none open) and loss count,
  ;; the number of blocks closed so far, and the folds' running values
  (global $prev (mut i64) (i64.const 0))
  (global $len (mut i32) (i32.const 0))
  (global $err (mut i32) (i32.const 0))
  (global $count (mut i32) (i32.const 0))
  (global $done (mut i32) (i32.const 0))
  ;; as named in ../ranking.ts — AUC: acc ($sum), above ($cum); AURC: sumR ($sum), cum, k,
  ;; last ($best), first; AUGRC: sumE ($sum), cum, first; FPR: bestFp ($sum), fp ($cum), tp ($k), best
  (global $sum (mut f64) (f64.const 0))
  (global $cum (mut f64) (f64.const 0))
  (global $k (mut f64) (f64.const 0))
  (global $best (mut f64) (f64.const 0))
  (global $first (mut f64) (f64.const 0))
  ;; AUC, FPR: the number of negatives (set flags); FPR: of positives, and the target recall·P
  (global $negatives (mut f64) (f64.const 0))
  (global $positives (mut f64) (f64.const 0))
  (global $target (mut f64) (f64.const 0))
  ;; the sweep fold (foldSweep) between calls: TP and FP so far, and each detection value's running
  ;; values, as named in ../../functional/detection.ts
  (global $fpr (mut f64) (f64.const 0))
  (global $tp (mut f64) (f64.const 0))
  (global $fp (mut f64) (f64.const 0))
  (global $roc (mut f64) (f64.const 0))
  (global $ap (mut f64) (f64.const 0))
  (global $fprBest (mut f64) (f64.const 0))
  (global $fprFp (mut f64) (f64.const 0))
  (global $fprDone (mut i32) (i32.const 0))
  (global $tprBest (mut f64) (f64.const 0))
  (global $tprStop (mut i32) (i32.const 0))
  (global $eerBest (mut f64) (f64.const 0))
  (global $eerTp (mut f64) (f64.const 0))
  (global $eerFp (mut f64) (f64.const 0))
  (global $det (mut f64) (f64.const 0))

  ;; Zeroes the first d working histograms (2048 counts each, digit d at d·8192) and the blocks state.
  (func (export "reset") (param $d i32)
    (call $zero (i32.const 0) (i32.shl (local.get $d) (i32.const 13)))
    (call $start (f64.const 0) (f64.const 0) (f64.const 0)))

  ;; Zeroes a column's digit counts and its count of set flags.
  (func (export "clearCounts")
    (call $zero (i32.const 49152) (i32.const 98312)))

  ;; Copies the first d of a column's digit counts to the working histograms.
  (func (export "loadCounts") (param $d i32)
    (local $p i32) (local $end i32)
    (local.set $end (i32.shl (local.get $d) (i32.const 13)))
    (block $done
      (loop $copy
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (i64.store (local.get $p) (i64.load offset=49152 (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $copy))))

  (func $zero (param $p i32) (param $end i32)
    (block $done
      (loop $zero
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (i64.store (local.get $p) (i64.const 0))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $zero))))

  ;; Starts a blocks pass (or fold), with for AUC and FPR the number of negatives and positives and
  ;; the FPR's target true positives.
  (func $start (export "start") (param $negatives f64) (param $positives f64) (param $target f64)
    (global.set $len (i32.const 0))
    (global.set $err (i32.const 0))
    (global.set $count (i32.const 0))
    (global.set $done (i32.const 0))
    (global.set $sum (f64.const 0))
    (global.set $cum (f64.const 0))
    (global.set $k (f64.const 0))
    (global.set $best (f64.const inf)) ;; FPR's start (AURC sets its last before reading it)
    (global.set $first (f64.const 0))
    (global.set $negatives (local.get $negatives))
    (global.set $positives (local.get $positives))
    (global.set $target (local.get $target)))

  ;; Histogram d to exclusive prefix sums; returns 1 if one digit holds all n keys (the pass can be
  ;; skipped: the histogram is then left half converted, and not used), else 0.
  (func (export "prefix") (param $d i32) (param $n i32) (result i32)
    (local $p i32) (local $end i32) (local $sum i32) (local $c i32)
    (local.set $p (i32.shl (local.get $d) (i32.const 13)))
    (local.set $end (i32.add (local.get $p) (i32.const 8192)))
    (loop $scan
      (local.set $c (i32.load (local.get $p)))
      (if (i32.eq (local.get $c) (local.get $n)) (then (return (i32.const 1))))
      (i32.store (local.get $p) (local.get $sum))
      (local.set $sum (i32.add (local.get $sum) (local.get $c)))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (br_if $scan (i32.lt_u (local.get $p) (local.get $end))))
    (i32.const 0))

  ;; Counts the digits (bits 0, 11, 22 without the sign bit) of the n float32 flagged keys at $a into
  ;; the histograms at $h (0: the working ones, 49152: a column's), and their set flags into the
  ;; column's count.
  (func (export "count32") (param $a i32) (param $n i32) (param $h i32)
    (local $i i32) (local $end i32) (local $u i32) (local $p i32) (local $flags i32)
    (local.set $i (local.get $a))
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $count
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $u (i32.load (local.get $i)))
        (local.set $flags (i32.add (local.get $flags) (i32.shr_u (local.get $u) (i32.const 31))))
        (local.set $u (i32.and (local.get $u) (i32.const 0x7fffffff)))
        (local.set $p (i32.add (local.get $h) (i32.shl (i32.and (local.get $u) (i32.const 2047)) (i32.const 2))))
        (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
        (local.set $p
          (i32.add
            (local.get $h)
            (i32.shl (i32.and (i32.shr_u (local.get $u) (i32.const 11)) (i32.const 2047)) (i32.const 2))))
        (i32.store offset=8192 (local.get $p) (i32.add (i32.load offset=8192 (local.get $p)) (i32.const 1)))
        (local.set $p (i32.add (local.get $h) (i32.shl (i32.shr_u (local.get $u) (i32.const 22)) (i32.const 2))))
        (i32.store offset=16384 (local.get $p) (i32.add (i32.load offset=16384 (local.get $p)) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $count)))
    (i32.store (i32.const 98304) (i32.add (i32.load (i32.const 98304)) (local.get $flags))))

  ;; As count32 for n float64 flagged keys: histograms 0 … 5 (digits at bits 0, 11, …, 55).
  (func (export "count64") (param $a i32) (param $n i32) (param $h i32)
    (local $i i32) (local $end i32) (local $u i64) (local $p i32) (local $flags i32)
    (local.set $i (local.get $a))
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 3))))
    (block $done
      (loop $count
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $u (i64.load (local.get $i)))
        (local.set $flags
          (i32.add (local.get $flags) (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 63)))))
        (local.set $u (i64.and (local.get $u) (i64.const 0x7fffffffffffffff)))
        (local.set $p
          (i32.add (local.get $h) (i32.shl (i32.and (i32.wrap_i64 (local.get $u)) (i32.const 2047)) (i32.const 2))))
        (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
        (local.set $p
          (i32.add
            (local.get $h)
            (i32.shl (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 11))) (i32.const 2047)) (i32.const 2))))
        (i32.store offset=8192 (local.get $p) (i32.add (i32.load offset=8192 (local.get $p)) (i32.const 1)))
        (local.set $p
          (i32.add
            (local.get $h)
            (i32.shl (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 22))) (i32.const 2047)) (i32.const 2))))
        (i32.store offset=16384 (local.get $p) (i32.add (i32.load offset=16384 (local.get $p)) (i32.const 1)))
        (local.set $p
          (i32.add
            (local.get $h)
            (i32.shl (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 33))) (i32.const 2047)) (i32.const 2))))
        (i32.store offset=24576 (local.get $p) (i32.add (i32.load offset=24576 (local.get $p)) (i32.const 1)))
        (local.set $p
          (i32.add
            (local.get $h)
            (i32.shl (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 44))) (i32.const 2047)) (i32.const 2))))
        (i32.store offset=32768 (local.get $p) (i32.add (i32.load offset=32768 (local.get $p)) (i32.const 1)))
        (local.set $p
          (i32.add (local.get $h) (i32.shl (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 55))) (i32.const 2))))
        (i32.store offset=40960 (local.get $p) (i32.add (i32.load offset=40960 (local.get $p)) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $count)))
    (i32.store (i32.const 98304) (i32.add (i32.load (i32.const 98304)) (local.get $flags))))

  ;; The n float32 keys at $a (≥ 0, not NaN) with the n 0/1 flags (bytes) at $f become flagged
  ;; keys in place, |key| with the sign set for flag 0, counted into the column's histograms.
  (func (export "pack32") (param $a i32) (param $f i32) (param $n i32)
    (local $i i32) (local $end i32) (local $u i32) (local $p i32) (local $loss i32) (local $flags i32)
    (local.set $i (local.get $a))
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $pack
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $u (i32.and (i32.load (local.get $i)) (i32.const 0x7fffffff)))
        (local.set $loss (i32.xor (i32.load8_u (local.get $f)) (i32.const 1)))
        (i32.store (local.get $i) (i32.or (local.get $u) (i32.shl (local.get $loss) (i32.const 31))))
        (local.set $flags (i32.add (local.get $flags) (local.get $loss)))
        (local.set $p (i32.add (i32.const 49152) (i32.shl (i32.and (local.get $u) (i32.const 2047)) (i32.const 2))))
        (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
        (local.set $p
          (i32.add
            (i32.const 49152)
            (i32.shl (i32.and (i32.shr_u (local.get $u) (i32.const 11)) (i32.const 2047)) (i32.const 2))))
        (i32.store offset=8192 (local.get $p) (i32.add (i32.load offset=8192 (local.get $p)) (i32.const 1)))
        (local.set $p (i32.add (i32.const 49152) (i32.shl (i32.shr_u (local.get $u) (i32.const 22)) (i32.const 2))))
        (i32.store offset=16384 (local.get $p) (i32.add (i32.load offset=16384 (local.get $p)) (i32.const 1)))
        (local.set $f (i32.add (local.get $f) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $pack)))
    (i32.store (i32.const 98304) (i32.add (i32.load (i32.const 98304)) (local.get $flags))))

  ;; As pack32 for float64 keys.
  (func (export "pack64") (param $a i32) (param $f i32) (param $n i32)
    (local $i i32) (local $end i32) (local $u i64) (local $p i32) (local $loss i32) (local $flags i32)
    (local.set $i (local.get $a))
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 3))))
    (block $done
      (loop $pack
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $u (i64.and (i64.load (local.get $i)) (i64.const 0x7fffffffffffffff)))
        (local.set $loss (i32.xor (i32.load8_u (local.get $f)) (i32.const 1)))
        (i64.store
          (local.get $i)
          (i64.or (local.get $u) (i64.shl (i64.extend_i32_u (local.get $loss)) (i64.const 63))))
        (local.set $flags (i32.add (local.get $flags) (local.get $loss)))
        (local.set $p
          (i32.add (i32.const 49152) (i32.shl (i32.and (i32.wrap_i64 (local.get $u)) (i32.const 2047)) (i32.const 2))))
        (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
        (local.set $p
          (i32.add
            (i32.const 49152)
            (i32.shl (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 11))) (i32.const 2047)) (i32.const 2))))
        (i32.store offset=8192 (local.get $p) (i32.add (i32.load offset=8192 (local.get $p)) (i32.const 1)))
        (local.set $p
          (i32.add
            (i32.const 49152)
            (i32.shl (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 22))) (i32.const 2047)) (i32.const 2))))
        (i32.store offset=16384 (local.get $p) (i32.add (i32.load offset=16384 (local.get $p)) (i32.const 1)))
        (local.set $p
          (i32.add
            (i32.const 49152)
            (i32.shl (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 33))) (i32.const 2047)) (i32.const 2))))
        (i32.store offset=24576 (local.get $p) (i32.add (i32.load offset=24576 (local.get $p)) (i32.const 1)))
        (local.set $p
          (i32.add
            (i32.const 49152)
            (i32.shl (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 44))) (i32.const 2047)) (i32.const 2))))
        (i32.store offset=32768 (local.get $p) (i32.add (i32.load offset=32768 (local.get $p)) (i32.const 1)))
        (local.set $p
          (i32.add (i32.const 49152) (i32.shl (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 55))) (i32.const 2))))
        (i32.store offset=40960 (local.get $p) (i32.add (i32.load offset=40960 (local.get $p)) (i32.const 1)))
        (local.set $f (i32.add (local.get $f) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $pack)))
    (i32.store (i32.const 98304) (i32.add (i32.load (i32.const 98304)) (local.get $flags))))

  ;; One chunk of the LSD pass on digit d (bits 11d … of the key without its sign bit): the n
  ;; flagged keys at $src go to their places in the array at $dst, by working histogram d (prefix
  ;; sums, advanced as keys are placed).
  (func (export "scatter32") (param $src i32) (param $dst i32) (param $n i32) (param $d i32)
    (local $i i32) (local $end i32) (local $u i32) (local $h i32) (local $t i32) (local $shift i32)
    (local $base i32)
    (local.set $shift (i32.mul (local.get $d) (i32.const 11)))
    (local.set $base (i32.shl (local.get $d) (i32.const 13)))
    (local.set $i (local.get $src))
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $scatter
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $u (i32.load (local.get $i)))
        (local.set $h
          (i32.add
            (local.get $base)
            (i32.shl
              (i32.and
                (i32.shr_u (i32.and (local.get $u) (i32.const 0x7fffffff)) (local.get $shift))
                (i32.const 2047))
              (i32.const 2))))
        (local.set $t (i32.load (local.get $h)))
        (i32.store (local.get $h) (i32.add (local.get $t) (i32.const 1)))
        (i32.store (i32.add (local.get $dst) (i32.shl (local.get $t) (i32.const 2))) (local.get $u))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $scatter))))

  ;; As scatter32 for float64 flagged keys.
  (func (export "scatter64") (param $src i32) (param $dst i32) (param $n i32) (param $d i32)
    (local $i i32) (local $end i32) (local $u i64) (local $h i32) (local $t i32) (local $shift i64)
    (local $base i32)
    (local.set $shift (i64.extend_i32_u (i32.mul (local.get $d) (i32.const 11))))
    (local.set $base (i32.shl (local.get $d) (i32.const 13)))
    (local.set $i (local.get $src))
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 3))))
    (block $done
      (loop $scatter
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $u (i64.load (local.get $i)))
        (local.set $h
          (i32.add
            (local.get $base)
            (i32.shl
              (i32.and
                (i32.wrap_i64
                  (i64.shr_u (i64.and (local.get $u) (i64.const 0x7fffffffffffffff)) (local.get $shift)))
                (i32.const 2047))
              (i32.const 2))))
        (local.set $t (i32.load (local.get $h)))
        (i32.store (local.get $h) (i32.add (local.get $t) (i32.const 1)))
        (i64.store (i32.add (local.get $dst) (i32.shl (local.get $t) (i32.const 3))) (local.get $u))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $scatter))))

  ;; Tie blocks of the n sorted flagged keys (float32 if $wide is 0, else float64) at $p, read from
  ;; the top down and continuing the open block of the previous chunk (the one above); with $final
  ;; (the last chunk) the open block is closed too. Each closed block's size goes as u32 to $size,
  ;; its loss count as f64 to $loss. Returns the blocks closed so far.
  (func (export "blocks") (param $p i32) (param $n i32) (param $wide i32) (param $final i32) (param $size i32)
    (param $loss i32) (result i32)
    (local $end i32) (local $i i32) (local $u i64) (local $key i64) (local $flag i64) (local $sh i64) (local $step i32)
    (local $prev i64) (local $len i32) (local $err i32) (local $count i32) (local $l f64) (local $e f64)
    (local.set $step (select (i32.const 8) (i32.const 4) (local.get $wide)))
    (local.set $sh (select (i64.const 63) (i64.const 31) (local.get $wide)))
    (local.set $i (i32.add (local.get $p) (i32.mul (local.get $n) (local.get $step))))
    (local.set $prev (global.get $prev))
    (local.set $len (global.get $len))
    (local.set $err (global.get $err))
    (local.set $count (global.get $count))
    (block $exit
      (loop $scan
        (if (i32.le_u (local.get $i) (local.get $p))
          (then
            ;; past the chunk: in the last one, close the open block (if any) before leaving
            (br_if $exit (i32.or (i32.eqz (local.get $final)) (i32.eqz (local.get $len))))
            (local.set $end (i32.const 1)))
          (else
            (local.set $i (i32.sub (local.get $i) (local.get $step)))
            (local.set $u
              (if (result i64) (local.get $wide)
                (then (i64.load (local.get $i)))
                (else (i64.load32_u (local.get $i)))))
            (local.set $flag (i64.shr_u (local.get $u) (local.get $sh)))
            (local.set $key (i64.xor (local.get $u) (i64.shl (local.get $flag) (local.get $sh))))))
        (if (i32.or
              (local.get $end)
              (i32.and (i64.ne (local.get $key) (local.get $prev)) (i32.ne (local.get $len) (i32.const 0))))
          (then
            ;; close the open block: $len samples, $err of them with loss 1
            (local.set $l (f64.convert_i32_u (local.get $len)))
            (local.set $e (f64.convert_i32_u (local.get $err)))
            (i32.store (i32.add (local.get $size) (i32.shl (local.get $count) (i32.const 2))) (local.get $len))
            (f64.store (i32.add (local.get $loss) (i32.shl (local.get $count) (i32.const 3))) (local.get $e))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (local.set $len (i32.const 0))
            (local.set $err (i32.const 0))
            (br_if $exit (local.get $end))))
        (local.set $prev (local.get $key))
        (local.set $len (i32.add (local.get $len) (i32.const 1)))
        (local.set $err (i32.add (local.get $err) (i32.wrap_i64 (local.get $flag))))
        (br $scan)))
    (global.set $prev (local.get $prev))
    (global.set $len (local.get $len))
    (global.set $err (local.get $err))
    (global.set $count (local.get $count))
    (local.get $count))

  ;; The folds: as `blocks` (with the same parameters, $size and $loss unused), each closed block
  ;; folded into running values instead of written out — the loops of mannWhitneyAUC, aurc, augrc
  ;; and fprAtRecall in ../ranking.ts, operation for operation, in the same order, so that the
  ;; values are the same to the bit. The running values live in globals between calls and are left
  ;; at 98312 (sum), 98320 (first), 98328 (best) and 98336 (cum) for the caller to finish with.

  ;; AUC (mannWhitneyAUC): acc ($sum), above ($cum).
  (func (export "foldAUC") (param $p i32) (param $n i32) (param $wide i32) (param $final i32) (param $size i32)
    (param $loss i32) (result i32)
    (local $end i32) (local $i i32) (local $u i64) (local $key i64) (local $flag i64) (local $sh i64) (local $step i32)
    (local $prev i64) (local $len i32) (local $err i32) (local $count i32) (local $l f64) (local $e f64) (local $sum f64) (local $cum f64)
    (local.set $step (select (i32.const 8) (i32.const 4) (local.get $wide)))
    (local.set $sh (select (i64.const 63) (i64.const 31) (local.get $wide)))
    (local.set $i (i32.add (local.get $p) (i32.mul (local.get $n) (local.get $step))))
    (local.set $prev (global.get $prev))
    (local.set $len (global.get $len))
    (local.set $err (global.get $err))
    (local.set $count (global.get $count))
    (local.set $sum (global.get $sum))
    (local.set $cum (global.get $cum))
    (block $exit
      (loop $scan
        (if (i32.le_u (local.get $i) (local.get $p))
          (then
            ;; past the chunk: in the last one, close the open block (if any) before leaving
            (br_if $exit (i32.or (i32.eqz (local.get $final)) (i32.eqz (local.get $len))))
            (local.set $end (i32.const 1)))
          (else
            (local.set $i (i32.sub (local.get $i) (local.get $step)))
            (local.set $u
              (if (result i64) (local.get $wide)
                (then (i64.load (local.get $i)))
                (else (i64.load32_u (local.get $i)))))
            (local.set $flag (i64.shr_u (local.get $u) (local.get $sh)))
            (local.set $key (i64.xor (local.get $u) (i64.shl (local.get $flag) (local.get $sh))))))
        (if (i32.or
              (local.get $end)
              (i32.and (i64.ne (local.get $key) (local.get $prev)) (i32.ne (local.get $len) (i32.const 0))))
          (then
            ;; close the open block: $len samples, $err of them with loss 1
            (local.set $l (f64.convert_i32_u (local.get $len)))
            (local.set $e (f64.convert_i32_u (local.get $err)))
            ;; acc += (size − neg)·(negatives − above − neg/2); above += neg
            (local.set $sum
              (f64.add
                (local.get $sum)
                (f64.mul
                  (f64.sub (local.get $l) (local.get $e))
                  (f64.sub (f64.sub (global.get $negatives) (local.get $cum)) (f64.div (local.get $e) (f64.const 2))))))
            (local.set $cum (f64.add (local.get $cum) (local.get $e)))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (local.set $len (i32.const 0))
            (local.set $err (i32.const 0))
            (br_if $exit (local.get $end))))
        (local.set $prev (local.get $key))
        (local.set $len (i32.add (local.get $len) (i32.const 1)))
        (local.set $err (i32.add (local.get $err) (i32.wrap_i64 (local.get $flag))))
        (br $scan)))
    (global.set $prev (local.get $prev))
    (global.set $len (local.get $len))
    (global.set $err (local.get $err))
    (global.set $count (local.get $count))
    (global.set $sum (local.get $sum))
    (global.set $cum (local.get $cum))
    (f64.store (i32.const 98312) (local.get $sum))
    (local.get $count))

  ;; AURC (aurc): sumR ($sum), cum, k, last ($best), first.
  (func (export "foldAURC") (param $p i32) (param $n i32) (param $wide i32) (param $final i32) (param $size i32)
    (param $loss i32) (result i32)
    (local $end i32) (local $i i32) (local $u i64) (local $key i64) (local $flag i64) (local $sh i64) (local $step i32)
    (local $prev i64) (local $len i32) (local $err i32) (local $count i32) (local $l f64) (local $e f64) (local $sum f64) (local $cum f64) (local $k f64) (local $best f64) (local $first f64) (local $per f64) (local $j i32)
    (local.set $step (select (i32.const 8) (i32.const 4) (local.get $wide)))
    (local.set $sh (select (i64.const 63) (i64.const 31) (local.get $wide)))
    (local.set $i (i32.add (local.get $p) (i32.mul (local.get $n) (local.get $step))))
    (local.set $prev (global.get $prev))
    (local.set $len (global.get $len))
    (local.set $err (global.get $err))
    (local.set $count (global.get $count))
    (local.set $sum (global.get $sum))
    (local.set $cum (global.get $cum))
    (local.set $k (global.get $k))
    (local.set $best (global.get $best))
    (local.set $first (global.get $first))
    (block $exit
      (loop $scan
        (if (i32.le_u (local.get $i) (local.get $p))
          (then
            ;; past the chunk: in the last one, close the open block (if any) before leaving
            (br_if $exit (i32.or (i32.eqz (local.get $final)) (i32.eqz (local.get $len))))
            (local.set $end (i32.const 1)))
          (else
            (local.set $i (i32.sub (local.get $i) (local.get $step)))
            (local.set $u
              (if (result i64) (local.get $wide)
                (then (i64.load (local.get $i)))
                (else (i64.load32_u (local.get $i)))))
            (local.set $flag (i64.shr_u (local.get $u) (local.get $sh)))
            (local.set $key (i64.xor (local.get $u) (i64.shl (local.get $flag) (local.get $sh))))))
        (if (i32.or
              (local.get $end)
              (i32.and (i64.ne (local.get $key) (local.get $prev)) (i32.ne (local.get $len) (i32.const 0))))
          (then
            ;; close the open block: $len samples, $err of them with loss 1
            (local.set $l (f64.convert_i32_u (local.get $len)))
            (local.set $e (f64.convert_i32_u (local.get $err)))
            ;; r_k = (cum + j·per)/k for each of the block's samples, summed (one sample: per = loss)
            (if (i32.eqz (local.get $count)) (then (local.set $first (f64.div (local.get $e) (local.get $l)))))
            (if (i32.eq (local.get $len) (i32.const 1))
              (then
                (local.set $k (f64.add (local.get $k) (f64.const 1)))
                (local.set $best (f64.div (f64.add (local.get $cum) (local.get $e)) (local.get $k)))
                (local.set $sum (f64.add (local.get $sum) (local.get $best))))
              (else
                (local.set $per (f64.div (local.get $e) (local.get $l)))
                (local.set $j (i32.const 1))
                (loop $samples
                  (local.set $k (f64.add (local.get $k) (f64.const 1)))
                  (local.set $best
                    (f64.div
                      (f64.add (local.get $cum) (f64.mul (f64.convert_i32_u (local.get $j)) (local.get $per)))
                      (local.get $k)))
                  (local.set $sum (f64.add (local.get $sum) (local.get $best)))
                  (local.set $j (i32.add (local.get $j) (i32.const 1)))
                  (br_if $samples (i32.le_u (local.get $j) (local.get $len))))))
            (local.set $cum (f64.add (local.get $cum) (local.get $e)))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (local.set $len (i32.const 0))
            (local.set $err (i32.const 0))
            (br_if $exit (local.get $end))))
        (local.set $prev (local.get $key))
        (local.set $len (i32.add (local.get $len) (i32.const 1)))
        (local.set $err (i32.add (local.get $err) (i32.wrap_i64 (local.get $flag))))
        (br $scan)))
    (global.set $prev (local.get $prev))
    (global.set $len (local.get $len))
    (global.set $err (local.get $err))
    (global.set $count (local.get $count))
    (global.set $sum (local.get $sum))
    (global.set $cum (local.get $cum))
    (global.set $k (local.get $k))
    (global.set $best (local.get $best))
    (global.set $first (local.get $first))
    (f64.store (i32.const 98312) (local.get $sum))
    (f64.store (i32.const 98320) (local.get $first))
    (f64.store (i32.const 98328) (local.get $best))
    (local.get $count))

  ;; AUGRC (augrc): sumE ($sum), cum, first.
  (func (export "foldAUGRC") (param $p i32) (param $n i32) (param $wide i32) (param $final i32) (param $size i32)
    (param $loss i32) (result i32)
    (local $end i32) (local $i i32) (local $u i64) (local $key i64) (local $flag i64) (local $sh i64) (local $step i32)
    (local $prev i64) (local $len i32) (local $err i32) (local $count i32) (local $l f64) (local $e f64) (local $sum f64) (local $cum f64) (local $first f64)
    (local.set $step (select (i32.const 8) (i32.const 4) (local.get $wide)))
    (local.set $sh (select (i64.const 63) (i64.const 31) (local.get $wide)))
    (local.set $i (i32.add (local.get $p) (i32.mul (local.get $n) (local.get $step))))
    (local.set $prev (global.get $prev))
    (local.set $len (global.get $len))
    (local.set $err (global.get $err))
    (local.set $count (global.get $count))
    (local.set $sum (global.get $sum))
    (local.set $cum (global.get $cum))
    (local.set $first (global.get $first))
    (block $exit
      (loop $scan
        (if (i32.le_u (local.get $i) (local.get $p))
          (then
            ;; past the chunk: in the last one, close the open block (if any) before leaving
            (br_if $exit (i32.or (i32.eqz (local.get $final)) (i32.eqz (local.get $len))))
            (local.set $end (i32.const 1)))
          (else
            (local.set $i (i32.sub (local.get $i) (local.get $step)))
            (local.set $u
              (if (result i64) (local.get $wide)
                (then (i64.load (local.get $i)))
                (else (i64.load32_u (local.get $i)))))
            (local.set $flag (i64.shr_u (local.get $u) (local.get $sh)))
            (local.set $key (i64.xor (local.get $u) (i64.shl (local.get $flag) (local.get $sh))))))
        (if (i32.or
              (local.get $end)
              (i32.and (i64.ne (local.get $key) (local.get $prev)) (i32.ne (local.get $len) (i32.const 0))))
          (then
            ;; close the open block: $len samples, $err of them with loss 1
            (local.set $l (f64.convert_i32_u (local.get $len)))
            (local.set $e (f64.convert_i32_u (local.get $err)))
            ;; sumE += len·cum + loss·(len + 1)/2
            (if (i32.eqz (local.get $count)) (then (local.set $first (f64.div (local.get $e) (local.get $l)))))
            (local.set $sum
              (f64.add
                (local.get $sum)
                (f64.add
                  (f64.mul (local.get $l) (local.get $cum))
                  (f64.div (f64.mul (local.get $e) (f64.add (local.get $l) (f64.const 1))) (f64.const 2)))))
            (local.set $cum (f64.add (local.get $cum) (local.get $e)))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (local.set $len (i32.const 0))
            (local.set $err (i32.const 0))
            (br_if $exit (local.get $end))))
        (local.set $prev (local.get $key))
        (local.set $len (i32.add (local.get $len) (i32.const 1)))
        (local.set $err (i32.add (local.get $err) (i32.wrap_i64 (local.get $flag))))
        (br $scan)))
    (global.set $prev (local.get $prev))
    (global.set $len (local.get $len))
    (global.set $err (local.get $err))
    (global.set $count (local.get $count))
    (global.set $sum (local.get $sum))
    (global.set $cum (local.get $cum))
    (global.set $first (local.get $first))
    (f64.store (i32.const 98312) (local.get $sum))
    (f64.store (i32.const 98320) (local.get $first))
    (f64.store (i32.const 98336) (local.get $cum))
    (local.get $count))

  ;; FPR at a recall (fprAtRecall): bestFp ($sum), fp ($cum), tp ($k), best; $done once tp = P.
  (func (export "foldFPR") (param $p i32) (param $n i32) (param $wide i32) (param $final i32) (param $size i32)
    (param $loss i32) (result i32)
    (local $end i32) (local $i i32) (local $u i64) (local $key i64) (local $flag i64) (local $sh i64) (local $step i32)
    (local $prev i64) (local $len i32) (local $err i32) (local $count i32) (local $l f64) (local $e f64) (local $sum f64) (local $cum f64) (local $k f64) (local $best f64) (local $done i32) (local $d f64)
    (local.set $step (select (i32.const 8) (i32.const 4) (local.get $wide)))
    (local.set $sh (select (i64.const 63) (i64.const 31) (local.get $wide)))
    (local.set $i (i32.add (local.get $p) (i32.mul (local.get $n) (local.get $step))))
    (local.set $prev (global.get $prev))
    (local.set $len (global.get $len))
    (local.set $err (global.get $err))
    (local.set $count (global.get $count))
    (local.set $sum (global.get $sum))
    (local.set $cum (global.get $cum))
    (local.set $k (global.get $k))
    (local.set $best (global.get $best))
    (local.set $done (global.get $done))
    (block $exit
      (loop $scan
        (if (i32.le_u (local.get $i) (local.get $p))
          (then
            ;; past the chunk: in the last one, close the open block (if any) before leaving
            (br_if $exit (i32.or (i32.eqz (local.get $final)) (i32.eqz (local.get $len))))
            (local.set $end (i32.const 1)))
          (else
            (local.set $i (i32.sub (local.get $i) (local.get $step)))
            (local.set $u
              (if (result i64) (local.get $wide)
                (then (i64.load (local.get $i)))
                (else (i64.load32_u (local.get $i)))))
            (local.set $flag (i64.shr_u (local.get $u) (local.get $sh)))
            (local.set $key (i64.xor (local.get $u) (i64.shl (local.get $flag) (local.get $sh))))))
        (if (i32.or
              (local.get $end)
              (i32.and (i64.ne (local.get $key) (local.get $prev)) (i32.ne (local.get $len) (i32.const 0))))
          (then
            ;; close the open block: $len samples, $err of them with loss 1
            (local.set $l (f64.convert_i32_u (local.get $len)))
            (local.set $e (f64.convert_i32_u (local.get $err)))
            ;; tp += size − loss; fp += loss; the nearest |tp − target| (ties: the lower threshold) keeps
            ;; its fp; nothing more once tp reaches every positive
            (if (i32.eqz (local.get $done))
              (then
                (local.set $k (f64.add (local.get $k) (f64.sub (local.get $l) (local.get $e))))
                (local.set $cum (f64.add (local.get $cum) (local.get $e)))
                (local.set $d (f64.abs (f64.sub (local.get $k) (global.get $target))))
                (if (f64.le (local.get $d) (local.get $best))
                  (then
                    (local.set $best (local.get $d))
                    (local.set $sum (local.get $cum))))
                (if (f64.eq (local.get $k) (global.get $positives)) (then (local.set $done (i32.const 1))))))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (local.set $len (i32.const 0))
            (local.set $err (i32.const 0))
            (br_if $exit (local.get $end))))
        (local.set $prev (local.get $key))
        (local.set $len (i32.add (local.get $len) (i32.const 1)))
        (local.set $err (i32.add (local.get $err) (i32.wrap_i64 (local.get $flag))))
        (br $scan)))
    (global.set $prev (local.get $prev))
    (global.set $len (local.get $len))
    (global.set $err (local.get $err))
    (global.set $count (local.get $count))
    (global.set $sum (local.get $sum))
    (global.set $cum (local.get $cum))
    (global.set $k (local.get $k))
    (global.set $best (local.get $best))
    (global.set $done (local.get $done))
    (f64.store (i32.const 98312) (local.get $sum))
    (local.get $count))

  ;; The threshold sweep of binary detection, every value of ../../functional/detection.ts at once:
  ;; AUROC, average precision, FPR at a TPR, TPR at an FPR, the equal error rate and the detection
  ;; error, each the loop of its JS function (auroc, averagePrecisionOf, fprAtTPRPoint, tprAtFPROf,
  ;; equalErrorRateOf, detectionErrorOf) with its float64 operations in their order, on TP and FP
  ;; counts that are exact integers in every one of them — so one pass gives the bits of six walks.
  ;; Starts a sweep: P and Q (the walk's positives and negatives), the target r·P of FPR at TPR and
  ;; the FPR budget of TPR at FPR.
  (func (export "startSweep") (param $positives f64) (param $negatives f64) (param $target f64) (param $fprLevel f64)
    (call $start (local.get $negatives) (local.get $positives) (local.get $target))
    (global.set $fpr (local.get $fprLevel))
    (global.set $tp (f64.const 0))
    (global.set $fp (f64.const 0))
    (global.set $roc (f64.const 0))
    (global.set $ap (f64.const 0))
    (global.set $fprBest (f64.const inf))
    (global.set $fprFp (f64.const 0))
    (global.set $fprDone (i32.const 0))
    (global.set $tprBest (f64.const 0))
    (global.set $tprStop (i32.const 0))
    ;; j = 0 of the EER and of the detection error: P·Q
    (global.set $eerBest (f64.mul (local.get $positives) (local.get $negatives)))
    (global.set $eerTp (f64.const 0))
    (global.set $eerFp (f64.const 0))
    (global.set $det (f64.mul (local.get $positives) (local.get $negatives))))

  ;; One chunk of the sweep over the n sorted flagged keys at $p (parameters as `blocks`; chunks in
  ;; the order of the pass), from the top down — negatives = the set flags — or, with $flip, from
  ;; the bottom up with the classes swapped (negatives = the unset flags): the walk of the negated
  ;; score for the other class (flip in ../../functional/detection.ts). Leaves the running values
  ;; at 131136: the AUROC's sum, the AP's sum, FPR at TPR's FP, TPR at FPR's best TP, the EER's TP
  ;; and FP, the detection error's best numerator. Returns the blocks closed so far.
  (func (export "foldSweep") (param $p i32) (param $n i32) (param $wide i32) (param $final i32) (param $flip i32)
    (result i32)
    (local $end i32) (local $i i32) (local $lim i32) (local $u i64) (local $key i64) (local $flag i64) (local $sh i64)
    (local $step i32) (local $prev i64) (local $len i32) (local $err i32) (local $count i32) (local $pos f64)
    (local $neg f64) (local $tp f64) (local $fp f64) (local $tp0 f64) (local $roc f64) (local $ap f64)
    (local $fprBest f64) (local $fprFp f64) (local $fprDone i32) (local $tprBest f64) (local $tprStop i32)
    (local $eerBest f64) (local $eerTp f64) (local $eerFp f64) (local $det f64) (local $d f64) (local $P f64) (local $Q f64)
    (local.set $step (select (i32.const 8) (i32.const 4) (local.get $wide)))
    (local.set $sh (select (i64.const 63) (i64.const 31) (local.get $wide)))
    ;; from the chunk's end down to $p, or ($flip) from $p up to its end
    (local.set $lim (i32.add (local.get $p) (i32.mul (local.get $n) (local.get $step))))
    (local.set $i (select (local.get $p) (local.get $lim) (local.get $flip)))
    (if (i32.eqz (local.get $flip)) (then (local.set $lim (local.get $p))))
    (local.set $prev (global.get $prev))
    (local.set $len (global.get $len))
    (local.set $err (global.get $err))
    (local.set $count (global.get $count))
    (local.set $P (global.get $positives))
    (local.set $Q (global.get $negatives))
    (local.set $tp (global.get $tp))
    (local.set $fp (global.get $fp))
    (local.set $roc (global.get $roc))
    (local.set $ap (global.get $ap))
    (local.set $fprBest (global.get $fprBest))
    (local.set $fprFp (global.get $fprFp))
    (local.set $fprDone (global.get $fprDone))
    (local.set $tprBest (global.get $tprBest))
    (local.set $tprStop (global.get $tprStop))
    (local.set $eerBest (global.get $eerBest))
    (local.set $eerTp (global.get $eerTp))
    (local.set $eerFp (global.get $eerFp))
    (local.set $det (global.get $det))
    (block $exit
      (loop $scan
        (if (i32.eq (local.get $i) (local.get $lim))
          (then
            ;; past the chunk: in the last one, close the open block (if any) before leaving
            (br_if $exit (i32.or (i32.eqz (local.get $final)) (i32.eqz (local.get $len))))
            (local.set $end (i32.const 1)))
          (else
            (if (local.get $flip)
              (then
                (local.set $u
                  (if (result i64) (local.get $wide)
                    (then (i64.load (local.get $i)))
                    (else (i64.load32_u (local.get $i)))))
                (local.set $i (i32.add (local.get $i) (local.get $step))))
              (else
                (local.set $i (i32.sub (local.get $i) (local.get $step)))
                (local.set $u
                  (if (result i64) (local.get $wide)
                    (then (i64.load (local.get $i)))
                    (else (i64.load32_u (local.get $i)))))))
            (local.set $flag (i64.shr_u (local.get $u) (local.get $sh)))
            (local.set $key (i64.xor (local.get $u) (i64.shl (local.get $flag) (local.get $sh))))))
        (if (i32.or
              (local.get $end)
              (i32.and (i64.ne (local.get $key) (local.get $prev)) (i32.ne (local.get $len) (i32.const 0))))
          (then
            ;; close the open block: $len samples, $err of them flagged; its negatives and positives
            (local.set $neg
              (f64.convert_i32_u
                (select (i32.sub (local.get $len) (local.get $err)) (local.get $err) (local.get $flip))))
            (local.set $pos
              (f64.convert_i32_u
                (select (local.get $err) (i32.sub (local.get $len) (local.get $err)) (local.get $flip))))
            ;; tp += gained; fp += neg (exact integers)
            (local.set $tp0 (local.get $tp))
            (local.set $tp (f64.add (local.get $tp) (local.get $pos)))
            (local.set $fp (f64.add (local.get $fp) (local.get $neg)))
            ;; auroc: acc += neg·(tp + tp0)
            (local.set $roc
              (f64.add (local.get $roc) (f64.mul (local.get $neg) (f64.add (local.get $tp) (local.get $tp0)))))
            ;; averagePrecisionOf: if (gained > 0) acc += (gained·tp)/(tp + fp)
            (if (f64.gt (local.get $pos) (f64.const 0))
              (then
                (local.set $ap
                  (f64.add
                    (local.get $ap)
                    (f64.div
                      (f64.mul (local.get $pos) (local.get $tp))
                      (f64.add (local.get $tp) (local.get $fp)))))))
            ;; fprAtTPRPoint: d = |tp − target|, d ≤ best keeps fp; no more once tp = P
            (if (i32.eqz (local.get $fprDone))
              (then
                (local.set $d (f64.abs (f64.sub (local.get $tp) (global.get $target))))
                (if (f64.le (local.get $d) (local.get $fprBest))
                  (then
                    (local.set $fprBest (local.get $d))
                    (local.set $fprFp (local.get $fp))))
                (if (f64.eq (local.get $tp) (local.get $P)) (then (local.set $fprDone (i32.const 1))))))
            ;; tprAtFPROf: stops at the first fp/Q above the budget, else best = tp
            (if (i32.eqz (local.get $tprStop))
              (then
                (if (f64.le (f64.div (local.get $fp) (local.get $Q)) (global.get $fpr))
                  (then (local.set $tprBest (local.get $tp)))
                  (else (local.set $tprStop (i32.const 1))))))
            ;; equalErrorRateOf: d = |fp·P − (P − tp)·Q|, the first smallest keeps tp and fp
            (local.set $d
              (f64.abs
                (f64.sub
                  (f64.mul (local.get $fp) (local.get $P))
                  (f64.mul (f64.sub (local.get $P) (local.get $tp)) (local.get $Q)))))
            (if (f64.lt (local.get $d) (local.get $eerBest))
              (then
                (local.set $eerBest (local.get $d))
                (local.set $eerTp (local.get $tp))
                (local.set $eerFp (local.get $fp))))
            ;; detectionErrorOf: best = min(best, (P − tp)·Q + fp·P)
            (local.set $det
              (f64.min
                (local.get $det)
                (f64.add
                  (f64.mul (f64.sub (local.get $P) (local.get $tp)) (local.get $Q))
                  (f64.mul (local.get $fp) (local.get $P)))))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (local.set $len (i32.const 0))
            (local.set $err (i32.const 0))
            (br_if $exit (local.get $end))))
        (local.set $prev (local.get $key))
        (local.set $len (i32.add (local.get $len) (i32.const 1)))
        (local.set $err (i32.add (local.get $err) (i32.wrap_i64 (local.get $flag))))
        (br $scan)))
    (global.set $prev (local.get $prev))
    (global.set $len (local.get $len))
    (global.set $err (local.get $err))
    (global.set $count (local.get $count))
    (global.set $tp (local.get $tp))
    (global.set $fp (local.get $fp))
    (global.set $roc (local.get $roc))
    (global.set $ap (local.get $ap))
    (global.set $fprBest (local.get $fprBest))
    (global.set $fprFp (local.get $fprFp))
    (global.set $fprDone (local.get $fprDone))
    (global.set $tprBest (local.get $tprBest))
    (global.set $tprStop (local.get $tprStop))
    (global.set $eerBest (local.get $eerBest))
    (global.set $eerTp (local.get $eerTp))
    (global.set $eerFp (local.get $eerFp))
    (global.set $det (local.get $det))
    (f64.store (i32.const 131136) (local.get $roc))
    (f64.store (i32.const 131144) (local.get $ap))
    (f64.store (i32.const 131152) (local.get $fprFp))
    (f64.store (i32.const 131160) (local.get $tprBest))
    (f64.store (i32.const 131168) (local.get $eerTp))
    (f64.store (i32.const 131176) (local.get $eerFp))
    (f64.store (i32.const 131184) (local.get $det))
    (local.get $count))
)
