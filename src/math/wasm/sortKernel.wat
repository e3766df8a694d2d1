;; The ranking sort: tie blocks of "flagged keys" — non-negative float32 or float64 keys whose
;; sign bit carries a 0/1 flag (set = loss 1), as ranking metrics store (confidence, correct).
;;
;; Rotating the IEEE bits left by one, u = rotl(bits, 1) = (|key| bits << 1) | flag, gives an
;; unsigned integer whose order is the key's order (a non-negative float's bits order like the
;; float, and ±0 both become key bits 0), with the flag as the lowest bit. An LSD radix sort on u
;; (11-bit digits; a digit equal for every key is skipped) then puts equal keys next to each other,
;; and one pass from the top reads each block's size and loss count (the number of set flags).
;; Integer operations only: the result is exactly what any correct sort gives.
;;
;; Every pass is split into calls over chunks of keys, driven by sortKernel.ts: V8 first runs
;; wasm through its baseline compiler and switches to optimized code only for later calls (there
;; is no on-stack replacement in wasm), so one call over millions of keys would run unoptimized.
;; Chunks are processed in order (a pass stays stable); the histograms and the open block carry
;; over from call to call.
;;
;; Memory: [0, 49152) the digit histograms (6 × 2048 u32); the caller places the keys and the
;; scratch buffer after that. Regenerate the embedded bytes with `node scripts/build-wasm.mjs`.
(module
  (memory (export "memory") 1)

;; the blocks pass between calls: the open block's key (u >> 1), length (0: none open) and loss
  ;; count, and the number of blocks closed so far
  (global $prev (mut i64) (i64.const 0))
  (global $len (mut i32) (i32.const 0))
  (global $err (mut i32) (i32.const 0))
  (global $count (mut i32) (i32.const 0))

  ;; Zeroes the first d histograms (2048 counts each, digit d at d·8192) and the blocks state.
  (func (export "reset") (param $d i32)
    (local $p i32) (local $end i32)
    (local.set $end (i32.shl (local.get $d) (i32.const 13)))
    (block $done
      (loop $zero
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (i64.store (local.get $p) (i64.const 0))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $zero)))
    (global.set $len (i32.const 0))
    (global.set $err (i32.const 0))
    (global.set $count (i32.const 0)))

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

  ;; The n float32 flagged keys at $a become u = rotl(bits, 1), in place, counted into histograms
  ;; 0, 1, 2 (digits at bits 0, 11, 22).
  (func (export "count32") (param $a i32) (param $n i32)
    (local $i i32) (local $end i32) (local $u i32) (local $h i32)
    (local.set $i (local.get $a))
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $count
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $u (i32.rotl (i32.load (local.get $i)) (i32.const 1)))
        (i32.store (local.get $i) (local.get $u))
        (local.set $h (i32.shl (i32.and (local.get $u) (i32.const 2047)) (i32.const 2)))
        (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))
        (local.set $h (i32.shl (i32.and (i32.shr_u (local.get $u) (i32.const 11)) (i32.const 2047)) (i32.const 2)))
        (i32.store offset=8192 (local.get $h) (i32.add (i32.load offset=8192 (local.get $h)) (i32.const 1)))
        (local.set $h (i32.shl (i32.shr_u (local.get $u) (i32.const 22)) (i32.const 2)))
        (i32.store offset=16384 (local.get $h) (i32.add (i32.load offset=16384 (local.get $h)) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $count))))

  ;; As count32 for n float64 flagged keys: histograms 0 … 5 (digits at bits 0, 11, …, 55).
  (func (export "count64") (param $a i32) (param $n i32)
    (local $i i32) (local $end i32) (local $u i64) (local $h i32)
    (local.set $i (local.get $a))
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 3))))
    (block $done
      (loop $count
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $u (i64.rotl (i64.load (local.get $i)) (i64.const 1)))
        (i64.store (local.get $i) (local.get $u))
        (local.set $h (i32.shl (i32.and (i32.wrap_i64 (local.get $u)) (i32.const 2047)) (i32.const 2)))
        (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))
        (local.set $h (i32.shl (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 11))) (i32.const 2047)) (i32.const 2)))
        (i32.store offset=8192 (local.get $h) (i32.add (i32.load offset=8192 (local.get $h)) (i32.const 1)))
        (local.set $h (i32.shl (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 22))) (i32.const 2047)) (i32.const 2)))
        (i32.store offset=16384 (local.get $h) (i32.add (i32.load offset=16384 (local.get $h)) (i32.const 1)))
        (local.set $h (i32.shl (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 33))) (i32.const 2047)) (i32.const 2)))
        (i32.store offset=24576 (local.get $h) (i32.add (i32.load offset=24576 (local.get $h)) (i32.const 1)))
        (local.set $h (i32.shl (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 44))) (i32.const 2047)) (i32.const 2)))
        (i32.store offset=32768 (local.get $h) (i32.add (i32.load offset=32768 (local.get $h)) (i32.const 1)))
        (local.set $h (i32.shl (i32.wrap_i64 (i64.shr_u (local.get $u) (i64.const 55))) (i32.const 2)))
        (i32.store offset=40960 (local.get $h) (i32.add (i32.load offset=40960 (local.get $h)) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $count))))

  ;; One chunk of the LSD pass on digit d (bits 11d …): the n u32 at $src go to their places in
  ;; the array at $dst, by histogram d (prefix sums, advanced as keys are placed).
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
            (i32.shl (i32.and (i32.shr_u (local.get $u) (local.get $shift)) (i32.const 2047)) (i32.const 2))))
        (local.set $t (i32.load (local.get $h)))
        (i32.store (local.get $h) (i32.add (local.get $t) (i32.const 1)))
        (i32.store (i32.add (local.get $dst) (i32.shl (local.get $t) (i32.const 2))) (local.get $u))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $scatter))))

  ;; As scatter32 for u64 keys.
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
              (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (local.get $shift))) (i32.const 2047))
              (i32.const 2))))
        (local.set $t (i32.load (local.get $h)))
        (i32.store (local.get $h) (i32.add (local.get $t) (i32.const 1)))
        (i64.store (i32.add (local.get $dst) (i32.shl (local.get $t) (i32.const 3))) (local.get $u))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $scatter))))

;; Tie blocks of the n sorted u (u32 if $wide is 0, else u64) at $p, read from the top down and
  ;; continuing the open block of the previous chunk (the one above): each closed block's size
  ;; (u32) to $size and loss count (f64) to $loss. Returns the blocks closed so far.
  (func (export "blocks") (param $p i32) (param $n i32) (param $wide i32) (param $size i32) (param $loss i32)
    (result i32)
    (local $i i32) (local $u i64) (local $key i64) (local $prev i64) (local $len i32) (local $err i32)
    (local $step i32) (local $count i32)
    (local.set $step (select (i32.const 8) (i32.const 4) (local.get $wide)))
    (local.set $i (i32.add (local.get $p) (i32.mul (local.get $n) (local.get $step))))
    (local.set $prev (global.get $prev))
    (local.set $len (global.get $len))
    (local.set $err (global.get $err))
    (local.set $count (global.get $count))
    (block $done
      (loop $scan
        (br_if $done (i32.le_u (local.get $i) (local.get $p)))
        (local.set $i (i32.sub (local.get $i) (local.get $step)))
        (local.set $u
          (if (result i64) (local.get $wide)
            (then (i64.load (local.get $i)))
            (else (i64.load32_u (local.get $i)))))
        (local.set $key (i64.shr_u (local.get $u) (i64.const 1)))
        (if (i32.and (i64.ne (local.get $key) (local.get $prev)) (i32.ne (local.get $len) (i32.const 0)))
          (then
            (i32.store (i32.add (local.get $size) (i32.shl (local.get $count) (i32.const 2))) (local.get $len))
            (f64.store
              (i32.add (local.get $loss) (i32.shl (local.get $count) (i32.const 3)))
              (f64.convert_i32_u (local.get $err)))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (local.set $len (i32.const 0))
            (local.set $err (i32.const 0))))
        (local.set $prev (local.get $key))
        (local.set $len (i32.add (local.get $len) (i32.const 1)))
        (local.set $err (i32.add (local.get $err) (i32.wrap_i64 (i64.and (local.get $u) (i64.const 1)))))
        (br $scan)))
    (global.set $prev (local.get $prev))
    (global.set $len (local.get $len))
    (global.set $err (local.get $err))
    (global.set $count (local.get $count))
    (local.get $count))

  ;; Closes the last block (if any); returns the number of blocks.
  (func (export "finish") (param $size i32) (param $loss i32) (result i32)
    (if (global.get $len)
      (then
        (i32.store (i32.add (local.get $size) (i32.shl (global.get $count) (i32.const 2))) (global.get $len))
        (f64.store
          (i32.add (local.get $loss) (i32.shl (global.get $count) (i32.const 3)))
          (f64.convert_i32_u (global.get $err)))
        (global.set $count (i32.add (global.get $count) (i32.const 1)))
        (global.set $len (i32.const 0))))
    (global.get $count))
)
