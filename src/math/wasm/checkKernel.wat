;; Input checks and cost sums of confidence batches (see checkKernel.ts), SIMD128. Comparisons,
;; integer sums and the JS loops' own float64 operations in their order: the answers are
;; exactly those of the JS loops they replace.
;; Memory: 3 pages; checkKernel.ts places float32 / int32 chunks of up to 16,384 values at 0 and
;; 65,536, and the flag bytes at 131,072.
(module
  (memory (export "memory") 3)
  ;; The first index i < n with the float32 at p + 4i outside [0, 1] (NaN included), or n.
  (func (export "unitFirstOutside") (param $p i32) (param $n i32) (result i32)
    (local $i i32) (local $end i32) (local $v v128) (local $x f32)
    (local.set $end (i32.and (local.get $n) (i32.const -4)))
    (block $simd
      (loop $l
        (br_if $simd (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $v (v128.load (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2)))))
        (br_if $simd
          (i32.eqz
            (i32x4.all_true
              (v128.and
                (f32x4.ge (local.get $v) (f32x4.splat (f32.const 0)))
                (f32x4.le (local.get $v) (f32x4.splat (f32.const 1)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
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
  (func (export "flags32") (param $p i32) (param $q i32) (param $n i32) (result i32)
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
;; s + Σ (c_i − y_i)² over float32 c at pc and byte flags y at py, in order (brierSum in
  ;; ../costs.ts: the same float64 operations, so the same bits).
  (func (export "brierSum") (param $pc i32) (param $py i32) (param $n i32) (param $s f64) (result f64)
    (local $i i32) (local $d f64)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $d
          (f64.sub
            (f64.promote_f32 (f32.load (i32.add (local.get $pc) (i32.shl (local.get $i) (i32.const 2)))))
            (f64.convert_i32_u (i32.load8_u (i32.add (local.get $py) (local.get $i))))))
        (local.set $s (f64.add (local.get $s) (f64.mul (local.get $d) (local.get $d))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $s))
  ;; s + Σ γ-cost with r = [1 − c_i > γ]: r·γ + (1 − r)·(1 − y_i), in order (gammaCostSum in
  ;; ../costs.ts: the same float64 operations).
  (func (export "gammaSum") (param $pc i32) (param $py i32) (param $n i32) (param $g f64) (param $s f64) (result f64)
    (local $i i32) (local $r f64)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $r
          (f64.convert_i32_u
            (f64.gt
              (f64.sub (f64.const 1)
                (f64.promote_f32 (f32.load (i32.add (local.get $pc) (i32.shl (local.get $i) (i32.const 2))))))
              (local.get $g))))
        (local.set $s
          (f64.add (local.get $s)
            (f64.add
              (f64.mul (local.get $r) (local.get $g))
              (f64.mul
                (f64.sub (f64.const 1) (local.get $r))
                (f64.sub (f64.const 1) (f64.convert_i32_u (i32.load8_u (i32.add (local.get $py) (local.get $i)))))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $s))
;; Adds n samples to equal-width bin statistics at po (float64: B counts, B Σc, B Σy), bin
  ;; b = min(B − 1, trunc(c·B)), in sample order (accumulateBins in ../binning.ts: the same bits).
  (func (export "bins") (param $pc i32) (param $py i32) (param $n i32) (param $nb i32) (param $po i32)
    (local $i i32) (local $c f64) (local $raw i32) (local $a i32) (local $fb f64) (local $stride i32)
    (local.set $fb (f64.convert_i32_u (local.get $nb)))
    (local.set $stride (i32.shl (local.get $nb) (i32.const 3)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (f64.promote_f32 (f32.load (i32.add (local.get $pc) (i32.shl (local.get $i) (i32.const 2))))))
        (local.set $raw (i32.trunc_sat_f64_s (f64.mul (local.get $c) (local.get $fb))))
        (if (i32.ge_s (local.get $raw) (local.get $nb))
          (then (local.set $raw (i32.sub (local.get $nb) (i32.const 1)))))
        (local.set $a (i32.add (local.get $po) (i32.shl (local.get $raw) (i32.const 3))))
        (f64.store (local.get $a) (f64.add (f64.load (local.get $a)) (f64.const 1)))
        (local.set $a (i32.add (local.get $a) (local.get $stride)))
        (f64.store (local.get $a) (f64.add (f64.load (local.get $a)) (local.get $c)))
        (local.set $a (i32.add (local.get $a) (local.get $stride)))
        (f64.store (local.get $a)
          (f64.add (f64.load (local.get $a))
            (f64.convert_i32_u (i32.load8_u (i32.add (local.get $py) (local.get $i))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
  )
)
