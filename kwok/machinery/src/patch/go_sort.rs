//! Go's `sort.SliceStable`, step for step.
//!
//! The strategic merge patch orders merged lists with a comparator that is not a strict weak order
//! (`normalizeSliceOrder` in strategicpatch/patch.go answers "less" for any pair it cannot place), so
//! the resulting order is whatever Go's particular algorithm produces. This is a port of
//! `stable_func`, `insertionSort_func`, `symMerge_func` and `rotate_func` from Go's
//! `sort/zsortfunc.go`, so lists come out in the same order as on a real API server.

/// Sort `items` in place with Go's stable sort; `less(a, b)` compares two elements.
pub fn slice_stable<T>(items: &mut [T], less: &mut dyn FnMut(&T, &T) -> bool) {
    let n = items.len();
    let mut block = 20;
    let (mut a, mut b) = (0, block);
    while b <= n {
        insertion_sort(items, a, b, less);
        a = b;
        b += block;
    }
    insertion_sort(items, a, n, less);

    while block < n {
        a = 0;
        b = 2 * block;
        while b <= n {
            sym_merge(items, a, a + block, b, less);
            a = b;
            b += 2 * block;
        }
        let m = a + block;
        if m < n {
            sym_merge(items, a, m, n, less);
        }
        block *= 2;
    }
}

fn insertion_sort<T>(d: &mut [T], a: usize, b: usize, less: &mut dyn FnMut(&T, &T) -> bool) {
    for i in a + 1..b {
        let mut j = i;
        while j > a && less(&d[j], &d[j - 1]) {
            d.swap(j, j - 1);
            j -= 1;
        }
    }
}

fn sym_merge<T>(d: &mut [T], a: usize, m: usize, b: usize, less: &mut dyn FnMut(&T, &T) -> bool) {
    if m - a == 1 {
        let (mut i, mut j) = (m, b);
        while i < j {
            let h = (i + j) / 2;
            if less(&d[h], &d[a]) {
                i = h + 1;
            } else {
                j = h;
            }
        }
        let mut k = a;
        while k + 1 < i {
            d.swap(k, k + 1);
            k += 1;
        }
        return;
    }
    if b - m == 1 {
        let (mut i, mut j) = (a, m);
        while i < j {
            let h = (i + j) / 2;
            if !less(&d[m], &d[h]) {
                i = h + 1;
            } else {
                j = h;
            }
        }
        let mut k = m;
        while k > i {
            d.swap(k, k - 1);
            k -= 1;
        }
        return;
    }
    let mid = (a + b) / 2;
    let n = mid + m;
    let (mut start, mut r) = if m > mid { (n - b, mid) } else { (a, m) };
    let p = n - 1;
    while start < r {
        let c = (start + r) / 2;
        if !less(&d[p - c], &d[c]) {
            start = c + 1;
        } else {
            r = c;
        }
    }
    let end = n - start;
    if start < m && m < end {
        rotate(d, start, m, end);
    }
    if a < start && start < mid {
        sym_merge(d, a, start, mid, less);
    }
    if mid < end && end < b {
        sym_merge(d, mid, end, b, less);
    }
}

fn rotate<T>(d: &mut [T], a: usize, m: usize, b: usize) {
    let mut i = m - a;
    let mut j = b - m;
    while i != j {
        if i > j {
            swap_range(d, m - i, m, j);
            i -= j;
        } else {
            swap_range(d, m - i, m + j - i, i);
            j -= i;
        }
    }
    swap_range(d, m - i, m, i);
}

fn swap_range<T>(d: &mut [T], a: usize, b: usize, n: usize) {
    for i in 0..n {
        d.swap(a + i, b + i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_across_blocks() {
        // Longer than one insertion-sort block, with equal keys to check stability.
        let mut v: Vec<(u32, usize)> = (0..57).map(|i| ((i * 7 % 5) as u32, i)).collect();
        slice_stable(&mut v, &mut |a, b| a.0 < b.0);
        for w in v.windows(2) {
            assert!(w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1));
        }
    }

    #[test]
    fn always_less_comparator_reverses_like_go() {
        // Go's insertion sort with less() == true everywhere moves each element to the front,
        // reversing a short slice; sort.SliceStable([]int{1,2,3,4}, func(i, j int) bool { return true })
        // yields [4 3 2 1].
        let mut v = vec![1, 2, 3, 4];
        slice_stable(&mut v, &mut |_, _| true);
        assert_eq!(v, vec![4, 3, 2, 1]);
    }
}
