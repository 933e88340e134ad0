package dev.ballast.core.health;

import java.util.Arrays;

/**
 * The checker's two queues, guarded by its lock: a binary min-heap of targets keyed by their next
 * event (a due check or a running check's timeout), indexed so that a target can leave it from
 * anywhere in {@code O(log n)}, equal keys in push order; and the targets whose check is due but which wait for a free slot,
 * in arrival order, linked through the targets themselves (no node objects). Keys are {@code
 * nanoTime} readings, compared by difference so that a wrap cannot reorder them.
 */
final class CheckQueue<T> {

  private Target<T>[] heap = newArray(16);
  private int size;
  private Target<T> waitHead;
  private Target<T> waitTail;
  private long pushes; // ties between equal keys go in push order

  int size() {
    return size;
  }

  /** Returns the earliest target, or null. */
  Target<T> peek() {
    return size == 0 ? null : heap[0];
  }

  void push(Target<T> t) {
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, size * 2);
    }
    heap[size] = t;
    t.index = size;
    t.seq = pushes++;
    up(size++);
  }

  Target<T> pop() {
    Target<T> top = heap[0];
    remove(top);
    return top;
  }

  /** Takes the target out of the heap and out of the wait queue, wherever it is. */
  void forget(Target<T> t) {
    if (t.index >= 0) {
      remove(t);
    }
    if (t.waiting) {
      unlinkWaiting(t);
    }
  }

  void remove(Target<T> t) {
    int i = t.index;
    Target<T> last = heap[--size];
    heap[size] = null;
    t.index = -1;
    if (i < size) {
      heap[i] = last;
      last.index = i;
      up(i);
      down(last.index);
    }
  }

  void clear() {
    Arrays.fill(heap, 0, size, null);
    size = 0;
    waitHead = null;
    waitTail = null;
  }

  // --- the wait queue ---

  void enqueue(Target<T> t) {
    t.waiting = true;
    if (waitTail == null) {
      waitHead = t;
    } else {
      waitTail.nextWaiting = t;
    }
    waitTail = t;
  }

  /** Returns the longest-waiting target, taken out of the queue, or null. */
  Target<T> dequeue() {
    Target<T> t = waitHead;
    if (t != null) {
      waitHead = t.nextWaiting;
      if (waitHead == null) {
        waitTail = null;
      }
      t.nextWaiting = null;
      t.waiting = false;
    }
    return t;
  }

  int waiting() {
    int n = 0;
    for (Target<T> t = waitHead; t != null; t = t.nextWaiting) {
      n++;
    }
    return n;
  }

  // O(waiting), only when a waiting node is removed by an update
  private void unlinkWaiting(Target<T> t) {
    Target<T> prev = null;
    for (Target<T> c = waitHead; c != null; prev = c, c = c.nextWaiting) {
      if (c == t) {
        if (prev == null) {
          waitHead = c.nextWaiting;
        } else {
          prev.nextWaiting = c.nextWaiting;
        }
        if (waitTail == c) {
          waitTail = prev;
        }
        break;
      }
    }
    t.nextWaiting = null;
    t.waiting = false;
  }

  private void up(int i) {
    Target<T> t = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      Target<T> p = heap[parent];
      if (!before(t, p)) {
        break;
      }
      heap[i] = p;
      p.index = i;
      i = parent;
    }
    heap[i] = t;
    t.index = i;
  }

  private void down(int i) {
    Target<T> t = heap[i];
    int half = size >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < size && before(heap[right], heap[child])) {
        child = right;
      }
      if (!before(heap[child], t)) {
        break;
      }
      heap[i] = heap[child];
      heap[i].index = i;
      i = child;
    }
    heap[i] = t;
    t.index = i;
  }

  private static boolean before(Target<?> a, Target<?> b) {
    long d = a.key - b.key;
    return d < 0 || (d == 0 && a.seq < b.seq);
  }

  @SuppressWarnings("unchecked")
  private static <T> Target<T>[] newArray(int n) {
    return (Target<T>[]) new Target<?>[n];
  }
}
