;; Input checks and cost sums of confidence batches (see checkKernel.ts), SIMD128. Comparisons,
;; integer sums and the JS loops' own float64 operations in their order: the answers are
;; exactly those of the JS loops they replace.
;; Memory: 5 pages; checkKernel.ts places float32 / int32 chunks of up to 16,384 values at 0 and
;; 65,536, the flag bytes at 131,072, bin statistics after them; the log sums use 196,608 on: the
;; float64 values whose logs they take (4,096 and the 8 bytes an odd count rewrites), and at
;; 229,392 the u of ECUAS_0 (4,096 + 1 float64) or the int32 counts of the bins; at 262,176 the
;; four Brier sums or the two γ-ECUAS counts; at 262,208 a float64 zero, never written.
(module
  (memory (export "memory") 5)
  ;; The first index i < n with the float32 at p + 4i outside [0, 1] (NaN included), or n. Sixteen
  ;; values a step with one test (a step that fails is rescanned one value at a time from its start).
  (func $unitFirstOutside (export "unitFirstOutside") (param $p i32) (param $n i32) (result i32)
    (local $i i32) (local $end i32) (local $q i32) (local $x f32) (local $zero v128) (local $one v128)
    (local $a v128) (local $b v128) (local $c v128) (local $d v128)
    (local.set $one (f32x4.splat (f32.const 1)))
    (local.set $end (i32.and (local.get $n) (i32.const -16)))
    (block $simd
      (loop $l
        (br_if $simd (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $q (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2))))
        (local.set $a (v128.load (local.get $q)))
        (local.set $b (v128.load offset=16 (local.get $q)))
        (local.set $c (v128.load offset=32 (local.get $q)))
        (local.set $d (v128.load offset=48 (local.get $q)))
        (br_if $simd
          (i32.eqz
            (i32x4.all_true
              (v128.and
                (v128.and
                  (v128.and (f32x4.ge (local.get $a) (local.get $zero)) (f32x4.le (local.get $a) (local.get $one)))
                  (v128.and (f32x4.ge (local.get $b) (local.get $zero)) (f32x4.le (local.get $b) (local.get $one))))
                (v128.and
                  (v128.and (f32x4.ge (local.get $c) (local.get $zero)) (f32x4.le (local.get $c) (local.get $one)))
                  (v128.and (f32x4.ge (local.get $d) (local.get $zero)) (f32x4.le (local.get $d) (local.get $one))))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $l)))
    (block $done
      (loop $t
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $x (f32.load (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2)))))
        (if (i32.eqz (i32.and (f32.ge (local.get $x) (f32.const 0)) (f32.le (local.get $x) (f32.const 1))))
          (then (return (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $t)))
    (local.get $n))
  ;; Int32 0/1 flags at p written as bytes at q; returns the number of ones, or -1 when a value
  ;; is neither 0 nor 1 (the bytes are then meaningless).
  (func $flags32 (export "flags32") (param $p i32) (param $q i32) (param $n i32) (result i32)
    (local $i i32) (local $end i32) (local $a v128) (local $b v128) (local $c v128) (local $d v128)
    (local $bits v128) (local $sum v128) (local $x i32) (local $tbits i32) (local $tsum i32)
    (local.set $end (i32.and (local.get $n) (i32.const -16)))
    (block $simd
      (loop $l
        (br_if $simd (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $x (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2))))
        (local.set $a (v128.load (local.get $x)))
        (local.set $b (v128.load offset=16 (local.get $x)))
        (local.set $c (v128.load offset=32 (local.get $x)))
        (local.set $d (v128.load offset=48 (local.get $x)))
        (local.set $bits (v128.or (local.get $bits)
          (v128.or (v128.or (local.get $a) (local.get $b)) (v128.or (local.get $c) (local.get $d)))))
        (local.set $sum (i32x4.add (local.get $sum)
          (i32x4.add (i32x4.add (local.get $a) (local.get $b)) (i32x4.add (local.get $c) (local.get $d)))))
        (v128.store (i32.add (local.get $q) (local.get $i))
          (i8x16.narrow_i16x8_u
            (i16x8.narrow_i32x4_u (local.get $a) (local.get $b))
            (i16x8.narrow_i32x4_u (local.get $c) (local.get $d))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $l)))
    (block $done
      (loop $t
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $x (i32.load (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $tbits (i32.or (local.get $tbits) (local.get $x)))
        (local.set $tsum (i32.add (local.get $tsum) (local.get $x)))
        (i32.store8 (i32.add (local.get $q) (local.get $i)) (local.get $x))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $t)))
    (if (i32.or
          (v128.any_true (v128.and (local.get $bits) (i32x4.splat (i32.const -2))))
          (i32.gt_u (local.get $tbits) (i32.const 1)))
      (then (return (i32.const -1))))
    (i32.add (local.get $tsum)
      (i32.add
        (i32.add (i32x4.extract_lane 0 (local.get $sum)) (i32x4.extract_lane 1 (local.get $sum)))
        (i32.add (i32x4.extract_lane 2 (local.get $sum)) (i32x4.extract_lane 3 (local.get $sum))))))
;; A whole batch of n values (n ≤ 16,384) at once: the float32 confidences at 0 checked, the int32
  ;; flags at 65,536 narrowed to bytes at 131,072 (one call where two would cost twice the call).
  ;; The number of ones; −1 when a flag is neither 0 nor 1, −2 when a confidence is outside [0, 1].
  (func (export "checkBatch") (param $n i32) (result i32)
    (if (i32.lt_u (call $unitFirstOutside (i32.const 0) (local.get $n)) (local.get $n))
      (then (return (i32.const -2))))
    (call $flags32 (i32.const 65536) (i32.const 131072) (local.get $n)))
  ;; The Brier sum of samples i = 0 … n − 1 in four running sums, sample i adding (c_i − y_i)² to
  ;; s_(i mod 4) (brierSum in ../costs.ts, the same float64 operations): s0 … s3 are the float64 at
  ;; pa, read and written back, so that chunks of a multiple of 4 samples continue them.
  (func (export "brierSum4") (param $pc i32) (param $py i32) (param $n i32) (param $pa i32)
    (local $i i32) (local $end i32) (local $a v128) (local $b v128) (local $c v128) (local $y v128)
    (local $d v128) (local $t i32) (local $e f64)
    (local.set $a (v128.load (local.get $pa)))
    (local.set $b (v128.load offset=16 (local.get $pa)))
    (local.set $end (i32.and (local.get $n) (i32.const -4)))
    (block $simd
      (loop $l
        (br_if $simd (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $c (v128.load (i32.add (local.get $pc) (i32.shl (local.get $i) (i32.const 2)))))
        ;; the four flag bytes as i32x4
        (local.set $y (i32x4.extend_low_i16x8_u (i16x8.extend_low_i8x16_u
          (i32x4.splat (i32.load (i32.add (local.get $py) (local.get $i)))))))
        (local.set $d (f64x2.sub (f64x2.promote_low_f32x4 (local.get $c)) (f64x2.convert_low_i32x4_u (local.get $y))))
        (local.set $a (f64x2.add (local.get $a) (f64x2.mul (local.get $d) (local.get $d))))
        (local.set $d (f64x2.sub
          (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $c) (local.get $c)))
          (f64x2.convert_low_i32x4_u (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $y) (local.get $y)))))
        (local.set $b (f64x2.add (local.get $b) (f64x2.mul (local.get $d) (local.get $d))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $l)))
    (v128.store (local.get $pa) (local.get $a))
    (v128.store offset=16 (local.get $pa) (local.get $b))
    ;; the last n mod 4 samples, into s0, s1, s2
    (block $done
      (loop $t
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $e (f64.sub
          (f64.promote_f32 (f32.load (i32.add (local.get $pc) (i32.shl (local.get $i) (i32.const 2)))))
          (f64.convert_i32_u (i32.load8_u (i32.add (local.get $py) (local.get $i))))))
        (local.set $t (i32.add (local.get $pa) (i32.shl (i32.sub (local.get $i) (local.get $end)) (i32.const 3))))
        (f64.store (local.get $t) (f64.add (f64.load (local.get $t)) (f64.mul (local.get $e) (local.get $e))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $t))))
  ;; The γ-ECUAS cost of samples i = 0 … n − 1 counted (gammaCostSum in ../costs.ts): writes to the
  ;; two int32 at pa the number rejected, Σ r_i with r_i = [1 − c_i > γ] (in float64, as in JS),
  ;; and the number accepted and wrong, Σ (1 − r_i)·(1 − y_i).
  (func (export "gammaCounts") (param $pc i32) (param $py i32) (param $n i32) (param $g f64) (param $pa i32)
    (local $i i32) (local $r i32) (local $rejected i32) (local $wrong i32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $r
          (f64.gt
            (f64.sub (f64.const 1)
              (f64.promote_f32 (f32.load (i32.add (local.get $pc) (i32.shl (local.get $i) (i32.const 2))))))
            (local.get $g)))
        (local.set $rejected (i32.add (local.get $rejected) (local.get $r)))
        (local.set $wrong (i32.add (local.get $wrong)
          (i32.mul (i32.sub (i32.const 1) (local.get $r))
            (i32.sub (i32.const 1) (i32.load8_u (i32.add (local.get $py) (local.get $i)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (i32.store (local.get $pa) (local.get $rejected))
    (i32.store offset=4 (local.get $pa) (local.get $wrong)))
;; Adds n samples to equal-width bin statistics at po (float64: B counts, B Σc, B Σy), bin
  ;; b = min(B − 1, trunc(c·B)) (accumulateBins in ../binning.ts: the same bits): Σc in sample
  ;; order; the counts and Σy (of bytes) in int32 at pi (2B, zeroed here), added once per bin at
  ;; the end, which for integer sums below 2^53 (the caller checks) are the same bits as adding
  ;; each sample's 1 and y in turn (every partial sum is exact).
  (func (export "bins") (param $pc i32) (param $py i32) (param $n i32) (param $nb i32) (param $po i32) (param $pi i32)
    (local $i i32) (local $c f64) (local $raw i32) (local $a i32) (local $fb f64) (local $stride i32)
    (local $q i32)
    (local.set $fb (f64.convert_i32_u (local.get $nb)))
    (local.set $stride (i32.shl (local.get $nb) (i32.const 3)))
    (memory.fill (local.get $pi) (i32.const 0) (local.get $stride))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (f64.promote_f32 (f32.load (i32.add (local.get $pc) (i32.shl (local.get $i) (i32.const 2))))))
        (local.set $raw (i32.trunc_sat_f64_s (f64.mul (local.get $c) (local.get $fb))))
        (if (i32.ge_s (local.get $raw) (local.get $nb))
          (then (local.set $raw (i32.sub (local.get $nb) (i32.const 1)))))
        (local.set $a (i32.add (i32.add (local.get $po) (local.get $stride)) (i32.shl (local.get $raw) (i32.const 3))))
        (f64.store (local.get $a) (f64.add (f64.load (local.get $a)) (local.get $c)))
        ;; count at pi + 8·raw, Σy at pi + 8·raw + 4
        (local.set $q (i32.add (local.get $pi) (i32.shl (local.get $raw) (i32.const 3))))
        (i32.store (local.get $q) (i32.add (i32.load (local.get $q)) (i32.const 1)))
        (i32.store offset=4 (local.get $q) (i32.add (i32.load offset=4 (local.get $q))
          (i32.load8_u (i32.add (local.get $py) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.set $i (i32.const 0))
    (block $added
      (loop $b
        (br_if $added (i32.ge_u (local.get $i) (local.get $nb)))
        (local.set $q (i32.add (local.get $pi) (i32.shl (local.get $i) (i32.const 3))))
        (local.set $a (i32.add (local.get $po) (i32.shl (local.get $i) (i32.const 3))))
        (f64.store (local.get $a) (f64.add (f64.load (local.get $a)) (f64.convert_i32_u (i32.load (local.get $q)))))
        (local.set $a (i32.add (local.get $a) (i32.shl (local.get $stride) (i32.const 1))))
        (f64.store (local.get $a)
          (f64.add (f64.load (local.get $a)) (f64.convert_i32_u (i32.load offset=4 (local.get $q)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $b)))
  )

  ;; ---------------------------------------------------------------------------------------------
  ;; The log sums of cross-entropy and ECUAS_0 (binaryCrossEntropySum, confidenceEcuasSum in
  ;; ../costs.ts): per block of up to 4,096 samples, the clamped probabilities go to the scratch at
  ;; $SCRATCH, $log takes their logs there in place, and the sum runs over them in sample order,
  ;; with the JS loops' float64 operations. $log is the log of softmaxKernel.wat (see the derivation
  ;; there), copied so that a batch already in this module's memory needs no other module.

  ;; The clamps of both take pmax then pmin, one instruction each where min and max take several:
  ;; with ε > 0 and 1 − ε > 0 not NaN, Math.max(x, ε) = (x < ε ? ε : x) = pmax(x, ε) and
  ;; Math.min(x, 1 − ε) = (1 − ε < x ? 1 − ε : x) = pmin(x, 1 − ε) for every x, NaN and −0 included.

  ;; s + Σ −log clamp(y·c + (1 − y)·(1 − c), ε, 1 − ε), in order; ε and 1 − ε are given,
  ;; 0 < ε < 1/2.
  (func (export "ceSum") (param $pc i32) (param $py i32) (param $n i32) (param $eps f64) (param $hi f64) (param $s f64) (result f64)
    (local $i i32) (local $m i32) (local $j i32) (local $t v128) (local $v v128) (local $one v128)
    (local $lo2 v128) (local $hi2 v128)
    (local.set $one (f64x2.splat (f64.const 1)))
    (local.set $lo2 (f64x2.splat (local.get $eps)))
    (local.set $hi2 (f64x2.splat (local.get $hi)))
    (block $done
      (loop $block
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $m (i32.sub (local.get $n) (local.get $i)))
        (if (i32.gt_u (local.get $m) (i32.const 4096)) (then (local.set $m (i32.const 4096))))
        ;; two at a time (an odd m reads one float and one byte past its end: harmless, unused)
        (local.set $j (i32.const 0))
        (block $filled
          (loop $fill
            (br_if $filled (i32.ge_u (local.get $j) (local.get $m)))
            (local.set $v (f64x2.promote_low_f32x4 (v128.load64_zero (i32.add (local.get $pc) (i32.shl (i32.add (local.get $i) (local.get $j)) (i32.const 2))))))
            (local.set $t (f64x2.convert_low_i32x4_u (i32x4.extend_low_i16x8_u (i16x8.extend_low_i8x16_u (v128.load16_splat (i32.add (local.get $py) (i32.add (local.get $i) (local.get $j))))))))
            (v128.store (i32.add (i32.const 196608) (i32.shl (local.get $j) (i32.const 3)))
              (f64x2.pmin
                (f64x2.pmax
                  (f64x2.add
                    (f64x2.mul (local.get $t) (local.get $v))
                    (f64x2.mul (f64x2.sub (local.get $one) (local.get $t)) (f64x2.sub (local.get $one) (local.get $v))))
                  (local.get $lo2))
                (local.get $hi2)))
            (local.set $j (i32.add (local.get $j) (i32.const 2)))
            (br $fill)))
        (call $log (i32.const 196608) (local.get $m))
        (local.set $j (i32.const 0))
        (block $summed
          (loop $sum
            (br_if $summed (i32.ge_u (local.get $j) (local.get $m)))
            (local.set $s (f64.sub (local.get $s)
              (f64.load (i32.add (i32.const 196608) (i32.shl (local.get $j) (i32.const 3))))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $sum)))
        (local.set $i (i32.add (local.get $i) (local.get $m)))
        (br $block)))
    (local.get $s))

  ;; s + Σ (u − (1 − y)·log u), u = clamp(1 − c, ε, 1 − ε), in order; ε and 1 − ε are given,
  ;; 0 < ε < 1/2. Only the logs of samples with y ≠ 1 (the wrong decisions) are taken: with u in
  ;; [ε, 1 − ε], log u < 0 is finite, so a correct one's term is u − 0·log u = u − (−0) = u, bit
  ;; for bit; for y = 0, 1·log u is log u.
  (func (export "ecuas0Sum") (param $pc i32) (param $py i32) (param $n i32) (param $eps f64) (param $hi f64) (param $s f64) (result f64)
    (local $i i32) (local $m i32) (local $j i32) (local $k i32) (local $u v128) (local $y i32) (local $a i32)
    (local $lo2 v128) (local $hi2 v128) (local $one v128)
    (local.set $one (f64x2.splat (f64.const 1)))
    (local.set $lo2 (f64x2.splat (local.get $eps)))
    (local.set $hi2 (f64x2.splat (local.get $hi)))
    (block $done
      (loop $block
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $m (i32.sub (local.get $n) (local.get $i)))
        (if (i32.gt_u (local.get $m) (i32.const 4096)) (then (local.set $m (i32.const 4096))))
        ;; u of the block at 229,392, two at a time (an odd m makes one more from the float after
        ;; the block: clamped, harmless, unused); the wrong ones' u also packed at the scratch
        (local.set $j (i32.const 0))
        (local.set $k (i32.const 0))
        (block $filled
          (loop $fill
            (br_if $filled (i32.ge_u (local.get $j) (local.get $m)))
            (local.set $a (i32.add (local.get $i) (local.get $j)))
            (local.set $u
              (f64x2.pmin
                (f64x2.pmax
                  (f64x2.sub (local.get $one)
                    (f64x2.promote_low_f32x4 (v128.load64_zero (i32.add (local.get $pc) (i32.shl (local.get $a) (i32.const 2))))))
                  (local.get $lo2))
                (local.get $hi2)))
            (v128.store (i32.add (i32.const 229392) (i32.shl (local.get $j) (i32.const 3))) (local.get $u))
            ;; packed where y ≠ 1 (0 for flags; any byte needs its log, as in JS), the one after
            ;; the block never
            (v128.store64_lane 0 (i32.add (i32.const 196608) (i32.shl (local.get $k) (i32.const 3))) (local.get $u))
            (local.set $k (i32.add (local.get $k)
              (i32.ne (i32.load8_u (i32.add (local.get $py) (local.get $a))) (i32.const 1))))
            (v128.store64_lane 1 (i32.add (i32.const 196608) (i32.shl (local.get $k) (i32.const 3))) (local.get $u))
            (local.set $k (i32.add (local.get $k)
              (i32.and
                (i32.ne (i32.load8_u offset=1 (i32.add (local.get $py) (local.get $a))) (i32.const 1))
                (i32.lt_u (i32.add (local.get $j) (i32.const 1)) (local.get $m)))))
            (local.set $j (i32.add (local.get $j) (i32.const 2)))
            (br $fill)))
        (call $log (i32.const 196608) (local.get $k))
        ;; the terms in sample order: u, or u − log u for a wrong one
        (local.set $j (i32.const 0))
        (local.set $k (i32.const 0))
        (block $summed
          (loop $sum
            (br_if $summed (i32.ge_u (local.get $j) (local.get $m)))
            ;; u − (1 − y)·log u; for y = 1 the log is read from the zero at 262,208 instead (u − 0·0
            ;; = u, as u − 0·log u): an address chosen without a branch, where one on y would be
            ;; mispredicted half the time
            (local.set $y (i32.load8_u (i32.add (local.get $py) (i32.add (local.get $i) (local.get $j)))))
            (local.set $s (f64.add (local.get $s)
              (f64.sub
                (f64.load (i32.add (i32.const 229392) (i32.shl (local.get $j) (i32.const 3))))
                (f64.mul
                  (f64.convert_i32_s (i32.sub (i32.const 1) (local.get $y)))
                  (f64.load
                    (select
                      (i32.const 262208)
                      (i32.add (i32.const 196608) (i32.shl (local.get $k) (i32.const 3)))
                      (i32.eq (local.get $y) (i32.const 1))))))))
            (local.set $k (i32.add (local.get $k) (i32.ne (local.get $y) (i32.const 1))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $sum)))
        (local.set $i (i32.add (local.get $i) (local.get $m)))
        (br $block)))
    (local.get $s))

  ;; The constants of $log. Mutable globals: TurboFan rematerialises a v128.const (or a local holding one)
  ;; at each use in a loop, three instructions each; a global is one load.
  (global $cMANT (mut v128) (v128.const i64x2 0x000fffffffffffff 0x000fffffffffffff))  ;; hx & 0xfffff, lx
  (global $c95F64 (mut v128) (v128.const i64x2 0x00095f6400000000 0x00095f6400000000)) ;; 0x95f64 in hx
  (global $cBIT52 (mut v128) (v128.const i64x2 0x0010000000000000 0x0010000000000000)) ;; 0x100000 in hx; 2^-1022
  (global $cONE (mut v128) (v128.const f64x2 1.0 1.0))                                  ;; 0x3ff00000 in hx
  (global $cINF (mut v128) (v128.const f64x2 inf inf))                                  ;; 0x7ff00000 in hx
  (global $cSPECIAL (mut v128) (v128.const i64x2 0xffdfffffffffffff 0xffdfffffffffffff))
  (global $cTWO52 (mut v128) (v128.const f64x2 0x1p52 0x1p52))
  (global $cKBIAS (mut v128) (v128.const f64x2 0x1.00000000003ffp52 0x1.00000000003ffp52)) ;; 2^52 + 1023
  (global $cSM2 (mut v128) (v128.const i64x2 0x0000000200000000 0x0000000200000000))   ;; 2 in hx
  (global $cSM3 (mut v128) (v128.const i64x2 0x0000000300000000 0x0000000300000000))   ;; 3 in hx
  (global $cIOFF (mut v128) (v128.const i64x2 0x7ff9eb8600000000 0x7ff9eb8600000000))  ;; 2^63 - 0x6147a in hx
  (global $cILIM (mut v128) (v128.const i64x2 0x8000a3d800000000 0x8000a3d800000000))  ;; -2^63 + 0xa3d8 in hx
  (global $cTWO (mut v128) (v128.const f64x2 2.0 2.0))
  (global $cHALF (mut v128) (v128.const f64x2 0.5 0.5))
  (global $cTHIRD (mut v128) (v128.const i64x2 0x3fd5555555555555 0x3fd5555555555555)) ;; 0.33333333333333333
  (global $cLg1 (mut v128) (v128.const i64x2 0x3fe5555555555593 0x3fe5555555555593))  ;; 6.666666666666735130e-01
  (global $cLg2 (mut v128) (v128.const i64x2 0x3fd999999997fa04 0x3fd999999997fa04))  ;; 3.999999999940941908e-01
  (global $cLg3 (mut v128) (v128.const i64x2 0x3fd2492494229359 0x3fd2492494229359))  ;; 2.857142874366239149e-01
  (global $cLg4 (mut v128) (v128.const i64x2 0x3fcc71c51d8e78af 0x3fcc71c51d8e78af))  ;; 2.222219843214978396e-01
  (global $cLg5 (mut v128) (v128.const i64x2 0x3fc7466496cb03de 0x3fc7466496cb03de))  ;; 1.818357216161805012e-01
  (global $cLg6 (mut v128) (v128.const i64x2 0x3fc39a09d078c69f 0x3fc39a09d078c69f))  ;; 1.531383769920937332e-01
  (global $cLg7 (mut v128) (v128.const i64x2 0x3fc2f112df3e5244 0x3fc2f112df3e5244))  ;; 1.479819860511658591e-01
  (global $cLN2HI (mut v128) (v128.const i64x2 0x3fe62e42fee00000 0x3fe62e42fee00000)) ;; ln2_hi = 6.93147180369123816490e-01
  (global $cLN2LO (mut v128) (v128.const i64x2 0x3dea39ef35793c76 0x3dea39ef35793c76)) ;; ln2_lo = 1.90821492927058770002e-10

  ;; log of the $n float64 at $p, in place, two per step: an odd $n also rewrites the float64
  ;; after the last (so 8 bytes past the end must be writable).
  (func $log (export "log") (param $p i32) (param $n i32)
    (local $end i32) (local $special i32)
    (local $x0 v128) (local $x v128) (local $kbias v128) (local $m v128) (local $i v128)
    (local $f v128) (local $dk v128) (local $s v128) (local $z v128) (local $w v128) (local $R v128)
    (local $dlo v128) (local $hfsq v128) (local $P v128) (local $small v128) (local $ipos v128)
    (local $zero v128) ;; never set
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 3))))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $x0 (v128.load (local.get $p)))
        (local.set $x (local.get $x0))
        (local.set $kbias (global.get $cKBIAS))
        ;; a lane not positive normal finite: bits b outside [0x0010.., 0x7ff0..), that is
        ;; b + 0x7ff0.. (mod 2^64) not below 0xffe0.. as a signed integer
        (local.set $special (i64x2.bitmask (i64x2.gt_s
          (i64x2.add (local.get $x0) (global.get $cINF)) (global.get $cSPECIAL))))
        (if (local.get $special)
          (then
            ;; x < 2^-1022: x *= two54, k -= 54 (which matters for subnormals only: the results of
            ;; the others are replaced at the end)
            (local.set $s (f64x2.lt (local.get $x0) (global.get $cBIT52)))
            (local.set $x (v128.bitselect (f64x2.mul (local.get $x0) (v128.const f64x2 0x1p54 0x1p54))
                                          (local.get $x0) (local.get $s)))
            (local.set $kbias (v128.bitselect (v128.const f64x2 0x1.0000000000435p52 0x1.0000000000435p52) ;; 2^52 + 1077
                                              (local.get $kbias) (local.get $s)))))
        ;; hx &= 0x000fffff (m: the whole mantissa, low word included); i = (hx + 0x95f64) & 0x100000
        (local.set $m (v128.and (local.get $x) (global.get $cMANT)))
        (local.set $i (v128.and (i64x2.add (local.get $m) (global.get $c95F64)) (global.get $cBIT52)))
        ;; x = hx | (i ^ 0x3ff00000), that is (hx | 0x3ff00000) - i; f = x - 1.0
        (local.set $f (f64x2.sub (i64x2.sub (v128.or (local.get $m) (global.get $cONE)) (local.get $i))
                                 (global.get $cONE)))
        ;; dk = (double)k, k = (hx >> 20) - 1023 + (i >> 20) (- 54): the exponent field of x plus
        ;; i >> 20, put in the low bits of 2^52 and the bias subtracted (exact)
        (local.set $dk (f64x2.sub
          (v128.or (i64x2.shr_u (i64x2.add (local.get $x) (local.get $i)) (i32.const 52)) (global.get $cTWO52))
          (local.get $kbias)))
        ;; s = f/(2.0+f); z = s*s; w = z*z; R = t2 + t1
        (local.set $s (f64x2.div (local.get $f) (f64x2.add (global.get $cTWO) (local.get $f))))
        (local.set $z (f64x2.mul (local.get $s) (local.get $s)))
        (local.set $w (f64x2.mul (local.get $z) (local.get $z)))
        (local.set $R (f64x2.add
          ;; t2 = z*(Lg1+w*(Lg3+w*(Lg5+w*Lg7)))
          (f64x2.mul (local.get $z) (f64x2.add (global.get $cLg1) (f64x2.mul (local.get $w)
            (f64x2.add (global.get $cLg3) (f64x2.mul (local.get $w)
              (f64x2.add (global.get $cLg5) (f64x2.mul (local.get $w) (global.get $cLg7))))))))
          ;; t1 = w*(Lg2+w*(Lg4+w*Lg6))
          (f64x2.mul (local.get $w) (f64x2.add (global.get $cLg2) (f64x2.mul (local.get $w)
            (f64x2.add (global.get $cLg4) (f64x2.mul (local.get $w) (global.get $cLg6))))))))
        (local.set $dlo (f64x2.mul (local.get $dk) (global.get $cLN2LO)))
        ;; P = s*(f-R) - dk*ln2_lo
        (local.set $P (f64x2.sub (f64x2.mul (local.get $s) (f64x2.sub (local.get $f) (local.get $R)))
                                 (local.get $dlo)))
        ;; (2+hx) & 0xfffff < 3, as ((m + (2 << 32)) & mant) < 3 << 32
        (local.set $small (i64x2.gt_s (global.get $cSM3)
          (v128.and (i64x2.add (local.get $m) (global.get $cSM2)) (global.get $cMANT))))
        ;; i > 0, that is 0 <= hx - 0x6147a < 0xa3d8: one signed compare after adding 2^63
        (local.set $ipos (i64x2.gt_s (global.get $cILIM) (i64x2.add (local.get $m) (global.get $cIOFF))))
        (if (i64x2.bitmask (v128.or (local.get $small) (local.get $ipos)))
          (then
            ;; |f| < 2^-20: P = f*f*(0.5-0.33333333333333333*f) - dk*ln2_lo
            (local.set $P (v128.bitselect
              (f64x2.sub
                (f64x2.mul (f64x2.mul (local.get $f) (local.get $f))
                           (f64x2.sub (global.get $cHALF) (f64x2.mul (global.get $cTHIRD) (local.get $f))))
                (local.get $dlo))
              (local.get $P) (local.get $small)))
            ;; i > 0: P = hfsq-(s*(hfsq+R)+dk*ln2_lo), hfsq = 0.5*f*f
            (local.set $hfsq (f64x2.mul (f64x2.mul (global.get $cHALF) (local.get $f)) (local.get $f)))
            (local.set $P (v128.bitselect
              (f64x2.sub (local.get $hfsq)
                (f64x2.add (f64x2.mul (local.get $s) (f64x2.add (local.get $hfsq) (local.get $R))) (local.get $dlo)))
              (local.get $P) (local.get $ipos)))))
        ;; dk*ln2_hi - (P - f)
        (local.set $P (f64x2.sub (f64x2.mul (local.get $dk) (global.get $cLN2HI))
                                 (f64x2.sub (local.get $P) (local.get $f))))
        (if (local.get $special)
          (then
            ;; hx >= 0x7ff00000 (+inf, NaN): x + x; x < 0 (-inf too): (x - x)/0 = NaN; +-0: -inf
            (local.set $P (v128.bitselect (local.get $P) (f64x2.add (local.get $x0) (local.get $x0))
                                          (f64x2.lt (local.get $x0) (global.get $cINF))))
            (local.set $P (v128.bitselect
              (f64x2.div (f64x2.sub (local.get $x0) (local.get $x0)) (local.get $zero)) (local.get $P)
              (f64x2.lt (local.get $x0) (local.get $zero))))
            (local.set $P (v128.bitselect (f64x2.neg (global.get $cINF)) (local.get $P)
                                          (f64x2.eq (local.get $x0) (local.get $zero))))))
        (v128.store (local.get $p) (local.get $P))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $step))))
)
