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
;; Memory: [0, 49152) the digit histograms (6 × 2048 u32); the caller places the keys and the
;; scratch buffer after that. Regenerate the embedded bytes with `node scripts/build-wasm.mjs`.
(module
  (memory (export "memory") 1)

  ;; Zeroes the d histograms of 2048 counts at 0.
  (func $clearHist (param $d i32)
    (local $p i32) (local $end i32)
    (local.set $end (i32.shl (local.get $d) (i32.const 13)))
    (block $done
      (loop $zero
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (i64.store (local.get $p) (i64.const 0))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $zero))))

  ;; Histogram $d (at d·8192) to exclusive prefix sums; returns 1 if one digit holds all n keys
  ;; (the pass can be skipped), else 0.
  (func $prefix (param $d i32) (param $n i32) (result i32)
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

  ;; Sorts the n float32 flagged keys at $a (scratch: n u32 at $b) into ascending u; returns where
  ;; the sorted u are ($a or $b). 32 bits: digits at 0, 11, 22.
  (func (export "sort32") (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $i i32) (local $end i32) (local $u i32) (local $d i32) (local $shift i32) (local $h i32)
    (local $t i32) (local $src i32) (local $dst i32)
    (call $clearHist (i32.const 3))
    ;; rotate in place and count all three digits in one pass
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
        (br $count)))
    (local.set $src (local.get $a))
    (local.set $dst (local.get $b))
    (loop $pass
      (if (i32.eqz (call $prefix (local.get $d) (local.get $n)))
        (then
          (local.set $i (local.get $src))
          (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 2))))
          (block $done
            (loop $scatter
              (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
              (local.set $u (i32.load (local.get $i)))
              (local.set $h
                (i32.add
                  (i32.shl (local.get $d) (i32.const 13))
                  (i32.shl (i32.and (i32.shr_u (local.get $u) (local.get $shift)) (i32.const 2047)) (i32.const 2))))
              (local.set $t (i32.load (local.get $h)))
              (i32.store (local.get $h) (i32.add (local.get $t) (i32.const 1)))
              (i32.store (i32.add (local.get $dst) (i32.shl (local.get $t) (i32.const 2))) (local.get $u))
              (local.set $i (i32.add (local.get $i) (i32.const 4)))
              (br $scatter)))
          (local.set $t (local.get $src))
          (local.set $src (local.get $dst))
          (local.set $dst (local.get $t))))
      (local.set $shift (i32.add (local.get $shift) (i32.const 11)))
      (local.set $d (i32.add (local.get $d) (i32.const 1)))
      (br_if $pass (i32.lt_u (local.get $d) (i32.const 3))))
    (local.get $src))

  ;; As sort32 for n float64 flagged keys (scratch: n u64 at $b). 64 bits: digits at 0, 11, …, 55.
  (func (export "sort64") (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $i i32) (local $end i32) (local $u i64) (local $d i32) (local $shift i64) (local $h i32)
    (local $t i32) (local $src i32) (local $dst i32)
    (call $clearHist (i32.const 6))
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
        (br $count)))
    (local.set $src (local.get $a))
    (local.set $dst (local.get $b))
    (loop $pass
      (if (i32.eqz (call $prefix (local.get $d) (local.get $n)))
        (then
          (local.set $i (local.get $src))
          (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 3))))
          (block $done
            (loop $scatter
              (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
              (local.set $u (i64.load (local.get $i)))
              (local.set $h
                (i32.add
                  (i32.shl (local.get $d) (i32.const 13))
                  (i32.shl
                    (i32.and (i32.wrap_i64 (i64.shr_u (local.get $u) (local.get $shift))) (i32.const 2047))
                    (i32.const 2))))
              (local.set $t (i32.load (local.get $h)))
              (i32.store (local.get $h) (i32.add (local.get $t) (i32.const 1)))
              (i64.store (i32.add (local.get $dst) (i32.shl (local.get $t) (i32.const 3))) (local.get $u))
              (local.set $i (i32.add (local.get $i) (i32.const 8)))
              (br $scatter)))
          (local.set $t (local.get $src))
          (local.set $src (local.get $dst))
          (local.set $dst (local.get $t))))
      (local.set $shift (i64.add (local.get $shift) (i64.const 11)))
      (local.set $d (i32.add (local.get $d) (i32.const 1)))
      (br_if $pass (i32.lt_u (local.get $d) (i32.const 6))))
    (local.get $src))

  ;; Tie blocks of the n sorted u32 at $p, from the largest key down: block sizes (u32) to $size,
  ;; loss counts (f64) to $loss. Returns the number of blocks.
  (func (export "blocks32") (param $p i32) (param $n i32) (param $size i32) (param $loss i32) (result i32)
    (local $i i32) (local $u i32) (local $key i32) (local $prev i32) (local $count i32)
    (local $len i32) (local $err i32)
    (if (i32.eqz (local.get $n)) (then (return (i32.const 0))))
    (local.set $i (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $prev (i32.shr_u (i32.load offset=0 (i32.sub (local.get $i) (i32.const 4))) (i32.const 1)))
    (loop $scan
      (local.set $i (i32.sub (local.get $i) (i32.const 4)))
      (local.set $u (i32.load (local.get $i)))
      (local.set $key (i32.shr_u (local.get $u) (i32.const 1)))
      (if (i32.ne (local.get $key) (local.get $prev))
        (then
          (i32.store (i32.add (local.get $size) (i32.shl (local.get $count) (i32.const 2))) (local.get $len))
          (f64.store
            (i32.add (local.get $loss) (i32.shl (local.get $count) (i32.const 3)))
            (f64.convert_i32_u (local.get $err)))
          (local.set $count (i32.add (local.get $count) (i32.const 1)))
          (local.set $len (i32.const 0))
          (local.set $err (i32.const 0))
          (local.set $prev (local.get $key))))
      (local.set $len (i32.add (local.get $len) (i32.const 1)))
      (local.set $err (i32.add (local.get $err) (i32.and (local.get $u) (i32.const 1))))
      (br_if $scan (i32.gt_u (local.get $i) (local.get $p))))
    (i32.store (i32.add (local.get $size) (i32.shl (local.get $count) (i32.const 2))) (local.get $len))
    (f64.store
      (i32.add (local.get $loss) (i32.shl (local.get $count) (i32.const 3)))
      (f64.convert_i32_u (local.get $err)))
    (i32.add (local.get $count) (i32.const 1)))

  ;; As blocks32 for n sorted u64 at $p.
  (func (export "blocks64") (param $p i32) (param $n i32) (param $size i32) (param $loss i32) (result i32)
    (local $i i32) (local $u i64) (local $key i64) (local $prev i64) (local $count i32)
    (local $len i32) (local $err i32)
    (if (i32.eqz (local.get $n)) (then (return (i32.const 0))))
    (local.set $i (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 3))))
    (local.set $prev (i64.shr_u (i64.load (i32.sub (local.get $i) (i32.const 8))) (i64.const 1)))
    (loop $scan
      (local.set $i (i32.sub (local.get $i) (i32.const 8)))
      (local.set $u (i64.load (local.get $i)))
      (local.set $key (i64.shr_u (local.get $u) (i64.const 1)))
      (if (i64.ne (local.get $key) (local.get $prev))
        (then
          (i32.store (i32.add (local.get $size) (i32.shl (local.get $count) (i32.const 2))) (local.get $len))
          (f64.store
            (i32.add (local.get $loss) (i32.shl (local.get $count) (i32.const 3)))
            (f64.convert_i32_u (local.get $err)))
          (local.set $count (i32.add (local.get $count) (i32.const 1)))
          (local.set $len (i32.const 0))
          (local.set $err (i32.const 0))
          (local.set $prev (local.get $key))))
      (local.set $len (i32.add (local.get $len) (i32.const 1)))
      (local.set $err (i32.add (local.get $err) (i32.wrap_i64 (i64.and (local.get $u) (i64.const 1)))))
      (br_if $scan (i32.gt_u (local.get $i) (local.get $p))))
    (i32.store (i32.add (local.get $size) (i32.shl (local.get $count) (i32.const 2))) (local.get $len))
    (f64.store
      (i32.add (local.get $loss) (i32.shl (local.get $count) (i32.const 3)))
      (f64.convert_i32_u (local.get $err)))
    (i32.add (local.get $count) (i32.const 1)))
)
