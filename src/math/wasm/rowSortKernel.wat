;; Sorts the rows of a row-major float32 [n, m] array four at a time (see rowSortKernel.ts),
;; SIMD128: rows 4g … 4g + 3 are transposed into m vectors (vector k holds member k of each of
;; the four rows, a missing row repeats the last), then a sorting network of comparators runs on
;; the vectors, each comparator one f32x4.pmin and one f32x4.pmax: the four rows sorted at once,
;; with no branch on the data. A comparator of equal values leaves them where they are (pmin
;; keeps its first operand, pmax of the swapped operands its second), so each row's output is a
;; permutation of its members, ascending. Finite (or infinite) float32 only: no NaN.
;; Memory: grown by the caller; the comparators are pairs of i32 byte offsets (16·i, 16·j), i < j.
(module
  (memory (export "memory") 1)
  ;; Rows of m float32 at src (n rows) into groups of 4·m float32 at dst (group g at
  ;; dst + 64·m·g, member k of row 4g + r at its float32 4k + r), each group sorted by the ntab
  ;; comparators at tab.
  (func $sortGroups (export "sortGroups")
    (param $src i32) (param $n i32) (param $m i32) (param $dst i32) (param $tab i32) (param $ntab i32)
    (local $row i32) (local $stride i32) (local $last i32) (local $r1 i32) (local $r2 i32) (local $r3 i32)
    (local $base i32) (local $k i32) (local $p i32) (local $q i32) (local $c i32) (local $tend i32)
    (local $a v128) (local $b v128) (local $v v128)
    (local.set $stride (i32.shl (local.get $m) (i32.const 2)))
    (local.set $last (i32.add (local.get $src) (i32.mul (i32.sub (local.get $n) (i32.const 1)) (local.get $stride))))
    (local.set $tend (i32.add (local.get $tab) (i32.shl (local.get $ntab) (i32.const 3))))
    (local.set $base (local.get $dst))
    (block $done
      (loop $groups
        (br_if $done (i32.le_s (local.get $n) (i32.const 0)))
        (local.set $row (local.get $src))
        ;; the other three rows, or the last row again
        (local.set $r1 (select (i32.add (local.get $row) (local.get $stride)) (local.get $last)
          (i32.gt_s (local.get $n) (i32.const 1))))
        (local.set $r2 (select (i32.add (local.get $r1) (local.get $stride)) (local.get $last)
          (i32.gt_s (local.get $n) (i32.const 2))))
        (local.set $r3 (select (i32.add (local.get $r2) (local.get $stride)) (local.get $last)
          (i32.gt_s (local.get $n) (i32.const 3))))
        ;; transpose in
        (local.set $k (i32.const 0))
        (local.set $q (local.get $base))
        (block $tdone
          (loop $t
            (br_if $tdone (i32.ge_u (local.get $k) (local.get $stride)))
            (local.set $v (v128.load32_zero (i32.add (local.get $row) (local.get $k))))
            (local.set $v (v128.load32_lane 1 (i32.add (local.get $r1) (local.get $k)) (local.get $v)))
            (local.set $v (v128.load32_lane 2 (i32.add (local.get $r2) (local.get $k)) (local.get $v)))
            (local.set $v (v128.load32_lane 3 (i32.add (local.get $r3) (local.get $k)) (local.get $v)))
            (v128.store (local.get $q) (local.get $v))
            (local.set $q (i32.add (local.get $q) (i32.const 16)))
            (local.set $k (i32.add (local.get $k) (i32.const 4)))
            (br $t)))
        ;; the network
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
            (br $net)))
        (local.set $src (i32.add (local.get $src) (i32.shl (local.get $stride) (i32.const 2))))
        (local.set $base (i32.add (local.get $base) (i32.shl (local.get $stride) (i32.const 2))))
        (local.set $n (i32.sub (local.get $n) (i32.const 4)))
        (br $groups)))))
