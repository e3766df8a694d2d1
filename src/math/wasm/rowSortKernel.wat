;; Sorts the rows of a row-major float32 [n, m] array four at a time (see rowSortKernel.ts),
;; SIMD128: rows 4g … 4g + 3 are transposed into m vectors (vector k holds member k of each of
;; the four rows, a missing row repeats the last), then a sorting network of comparators runs on
;; the vectors, each comparator one f32x4.pmin and one f32x4.pmax: the four rows sorted at once,
;; with no branch on the data. A comparator of equal values leaves them where they are (pmin
;; keeps its first operand, pmax of the swapped operands its second), so each row's output is a
;; permutation of its members, ascending. Finite (or infinite) float32 only: no NaN. crpsTerms
;; scores each group as it is sorted; firstNonFinite checks a batch before.
;; Memory: grown by the caller; the comparators are pairs of i32 byte offsets (16·i, 16·j), i < j.
(module
  (memory (export "memory") 1)
  ;; Rows 0 … min(n, 4) − 1 of m float32 at src (a missing row repeats the last) transposed to
  ;; the m vectors at base, then sorted by the comparators at tab … tend.
  (func $group (param $src i32) (param $n i32) (param $m i32) (param $base i32) (param $tab i32) (param $tend i32)
    (local $stride i32) (local $last i32) (local $r1 i32) (local $r2 i32) (local $r3 i32)
    (local $k i32) (local $p i32) (local $q i32) (local $c i32)
    (local $a v128) (local $b v128) (local $v v128)
    (local.set $stride (i32.shl (local.get $m) (i32.const 2)))
    (local.set $last (i32.add (local.get $src) (i32.mul (i32.sub (select (local.get $n) (i32.const 4)
      (i32.lt_s (local.get $n) (i32.const 4))) (i32.const 1)) (local.get $stride))))
    (local.set $r1 (select (i32.add (local.get $src) (local.get $stride)) (local.get $last)
      (i32.gt_s (local.get $n) (i32.const 1))))
    (local.set $r2 (select (i32.add (local.get $r1) (local.get $stride)) (local.get $last)
      (i32.gt_s (local.get $n) (i32.const 2))))
    (local.set $r3 (select (i32.add (local.get $r2) (local.get $stride)) (local.get $last)
      (i32.gt_s (local.get $n) (i32.const 3))))
    (local.set $q (local.get $base))
    (block $tdone
      (loop $t
        (br_if $tdone (i32.ge_u (local.get $k) (local.get $stride)))
        (local.set $v (v128.load32_zero (i32.add (local.get $src) (local.get $k))))
        (local.set $v (v128.load32_lane 1 (i32.add (local.get $r1) (local.get $k)) (local.get $v)))
        (local.set $v (v128.load32_lane 2 (i32.add (local.get $r2) (local.get $k)) (local.get $v)))
        (local.set $v (v128.load32_lane 3 (i32.add (local.get $r3) (local.get $k)) (local.get $v)))
        (v128.store (local.get $q) (local.get $v))
        (local.set $q (i32.add (local.get $q) (i32.const 16)))
        (local.set $k (i32.add (local.get $k) (i32.const 4)))
        (br $t)))
    (local.set $c (local.get $tab))
    (block $ndone
      (loop $net
        (br_if $ndone (i32.ge_u (local.get $c) (local.get $tend)))
        (local.set $p (i32.add (local.get $base) (i32.load (local.get $c))))
        (local.set $q (i32.add (local.get $base) (i32.load offset=4 (local.get $c))))
        (local.set $a (v128.load (local.get $p)))
        (local.set $b (v128.load (local.get $q)))
        (v128.store (local.get $p) (f32x4.pmin (local.get $a) (local.get $b)))
        (v128.store (local.get $q) (f32x4.pmax (local.get $b) (local.get $a)))
        (local.set $c (i32.add (local.get $c) (i32.const 8)))
        (br $net))))

  ;; Rows of m float32 at src (n rows) into groups of 4·m float32 at dst (group g at
  ;; dst + 16·m·g, member k of row 4g + r at its float32 4k + r), each group sorted by the ntab
  ;; comparators at tab.
  (func $sortGroups (export "sortGroups")
    (param $src i32) (param $n i32) (param $m i32) (param $dst i32) (param $tab i32) (param $ntab i32)
    (local $tend i32) (local $step i32)
    (local.set $tend (i32.add (local.get $tab) (i32.shl (local.get $ntab) (i32.const 3))))
    (local.set $step (i32.shl (local.get $m) (i32.const 4)))
    (block $done
      (loop $groups
        (br_if $done (i32.le_s (local.get $n) (i32.const 0)))
        (call $group (local.get $src) (local.get $n) (local.get $m) (local.get $dst) (local.get $tab) (local.get $tend))
        (local.set $src (i32.add (local.get $src) (local.get $step)))
        (local.set $dst (i32.add (local.get $dst) (local.get $step)))
        (local.set $n (i32.sub (local.get $n) (i32.const 4)))
        (br $groups))))

  ;; The CRPS terms of n rows of m float32 at src with their float32 targets at py: each group of
  ;; four rows sorted at work (as sortGroups does), then per row, in float64 and in the order of
  ;; sortedCrps in ../../functional/forecast.ts, A = Σ_k |x_(k) − y| and
  ;; S = Σ_k k(m − k)·(x_(k) − x_(k−1)), k from 1, and the term A/m − S/den, written as float64
  ;; at po (n of them; a last group's missing rows are not written).
  (func $crpsTerms (export "crpsTerms")
    (param $src i32) (param $n i32) (param $m i32) (param $work i32) (param $tab i32) (param $ntab i32)
    (param $py i32) (param $po i32) (param $den f64)
    (local $tend i32) (local $step i32) (local $k i32) (local $q i32) (local $fm f64)
    (local $x v128) (local $x02 v128) (local $y01 v128) (local $y23 v128)
    (local $lo v128) (local $hi v128) (local $plo v128) (local $phi v128)
    (local $a01 v128) (local $a23 v128) (local $s01 v128) (local $s23 v128) (local $w v128)
    (local $mm v128) (local $dd v128)
    (local.set $tend (i32.add (local.get $tab) (i32.shl (local.get $ntab) (i32.const 3))))
    (local.set $step (i32.shl (local.get $m) (i32.const 4)))
    (local.set $fm (f64.convert_i32_s (local.get $m)))
    (local.set $mm (f64x2.splat (local.get $fm)))
    (local.set $dd (f64x2.splat (local.get $den)))
    (block $done
      (loop $groups
        (br_if $done (i32.le_s (local.get $n) (i32.const 0)))
        (call $group (local.get $src) (local.get $n) (local.get $m) (local.get $work) (local.get $tab) (local.get $tend))
        ;; the targets of the group (a missing row's: whatever follows, never written out)
        (local.set $x (v128.load (local.get $py)))
        (local.set $y01 (f64x2.promote_low_f32x4 (local.get $x)))
        (local.set $y23 (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $x) (local.get $x))))
        (local.set $x (v128.load (local.get $work)))
        (local.set $plo (f64x2.promote_low_f32x4 (local.get $x)))
        (local.set $phi (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $x) (local.get $x))))
        (local.set $a01 (f64x2.abs (f64x2.sub (local.get $plo) (local.get $y01))))
        (local.set $a23 (f64x2.abs (f64x2.sub (local.get $phi) (local.get $y23))))
        (local.set $s01 (v128.const i64x2 0 0))
        (local.set $s23 (v128.const i64x2 0 0))
        (local.set $k (i32.const 1))
        (local.set $q (i32.add (local.get $work) (i32.const 16)))
        (block $rdone
          (loop $r
            (br_if $rdone (i32.ge_s (local.get $k) (local.get $m)))
            (local.set $x (v128.load (local.get $q)))
            (local.set $lo (f64x2.promote_low_f32x4 (local.get $x)))
            (local.set $hi (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $x) (local.get $x))))
            (local.set $a01 (f64x2.add (local.get $a01) (f64x2.abs (f64x2.sub (local.get $lo) (local.get $y01)))))
            (local.set $a23 (f64x2.add (local.get $a23) (f64x2.abs (f64x2.sub (local.get $hi) (local.get $y23)))))
            (local.set $w (f64x2.splat (f64.convert_i32_s (i32.mul (local.get $k) (i32.sub (local.get $m) (local.get $k))))))
            (local.set $s01 (f64x2.add (local.get $s01) (f64x2.mul (local.get $w) (f64x2.sub (local.get $lo) (local.get $plo)))))
            (local.set $s23 (f64x2.add (local.get $s23) (f64x2.mul (local.get $w) (f64x2.sub (local.get $hi) (local.get $phi)))))
            (local.set $plo (local.get $lo))
            (local.set $phi (local.get $hi))
            (local.set $q (i32.add (local.get $q) (i32.const 16)))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $r)))
        (local.set $a01 (f64x2.sub (f64x2.div (local.get $a01) (local.get $mm)) (f64x2.div (local.get $s01) (local.get $dd))))
        (local.set $a23 (f64x2.sub (f64x2.div (local.get $a23) (local.get $mm)) (f64x2.div (local.get $s23) (local.get $dd))))
        (block $written
          (f64.store (local.get $po) (f64x2.extract_lane 0 (local.get $a01)))
          (br_if $written (i32.lt_s (local.get $n) (i32.const 2)))
          (f64.store offset=8 (local.get $po) (f64x2.extract_lane 1 (local.get $a01)))
          (br_if $written (i32.lt_s (local.get $n) (i32.const 3)))
          (f64.store offset=16 (local.get $po) (f64x2.extract_lane 0 (local.get $a23)))
          (br_if $written (i32.lt_s (local.get $n) (i32.const 4)))
          (f64.store offset=24 (local.get $po) (f64x2.extract_lane 1 (local.get $a23))))
        (local.set $src (i32.add (local.get $src) (local.get $step)))
        (local.set $py (i32.add (local.get $py) (i32.const 16)))
        (local.set $po (i32.add (local.get $po) (i32.const 32)))
        (local.set $n (i32.sub (local.get $n) (i32.const 4)))
        (br $groups))))
  ;; The first index i < n with the float32 at p + 4i not finite (x − x ≠ 0: NaN, ±∞), or n.
  ;; Sixteen values a step with one test (a step that fails is rescanned one value at a time).
  (func $firstNonFinite (export "firstNonFinite") (param $p i32) (param $n i32) (result i32)
    (local $i i32) (local $end i32) (local $q i32) (local $x f32) (local $zero v128)
    (local $a v128) (local $b v128) (local $c v128) (local $d v128)
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
                  (f32x4.eq (f32x4.sub (local.get $a) (local.get $a)) (local.get $zero))
                  (f32x4.eq (f32x4.sub (local.get $b) (local.get $b)) (local.get $zero)))
                (v128.and
                  (f32x4.eq (f32x4.sub (local.get $c) (local.get $c)) (local.get $zero))
                  (f32x4.eq (f32x4.sub (local.get $d) (local.get $d)) (local.get $zero)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $l)))
    (block $done
      (loop $t
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $x (f32.load (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2)))))
        (br_if $done (f32.ne (f32.sub (local.get $x) (local.get $x)) (f32.const 0)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $t)))
    (local.get $i)))
