package dev.courier.backpressure.internal;

import java.util.Arrays;

/**
 * Non-negative int keys to int values with open addressing: a group's partition ids to its rows
 * without a boxed entry per pair (a million pairs as HashMap entries cost about 60 MB).
 */
final class IntIntMap {

  static final int ABSENT = -1;

  private int[] keys;
  private int[] values;
  private int size;

  IntIntMap() {
    keys = new int[16];
    values = new int[16];
    Arrays.fill(keys, ABSENT);
  }

  int size() {
    return size;
  }

  int get(int key) {
    int mask = keys.length - 1;
    for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
      int k = keys[i];
      if (k == key) {
        return values[i];
      }
      if (k == ABSENT) {
        return ABSENT;
      }
    }
  }

  void put(int key, int value) {
    if (key < 0) {
      throw new IllegalArgumentException("keys are non-negative, got " + key);
    }
    if ((size + 1) * 2 > keys.length) {
      rehash(keys.length * 2);
    }
    int mask = keys.length - 1;
    for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
      if (keys[i] == key) {
        values[i] = value;
        return;
      }
      if (keys[i] == ABSENT) {
        keys[i] = key;
        values[i] = value;
        size++;
        return;
      }
    }
  }

  /** Removes the key, shifting back the entries probed past it (no tombstones). */
  void remove(int key) {
    int mask = keys.length - 1;
    int i = mix(key) & mask;
    while (keys[i] != key) {
      if (keys[i] == ABSENT) {
        return;
      }
      i = (i + 1) & mask;
    }
    size--;
    int hole = i;
    for (int j = (hole + 1) & mask; keys[j] != ABSENT; j = (j + 1) & mask) {
      int home = mix(keys[j]) & mask;
      // j's entry may move into the hole only if its home is not cyclically in (hole, j].
      boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        keys[hole] = keys[j];
        values[hole] = values[j];
        hole = j;
      }
    }
    keys[hole] = ABSENT;
  }

  private void rehash(int capacity) {
    int[] oldKeys = keys;
    int[] oldValues = values;
    keys = new int[capacity];
    values = new int[capacity];
    Arrays.fill(keys, ABSENT);
    size = 0;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != ABSENT) {
        put(oldKeys[i], oldValues[i]);
      }
    }
  }

  private static int mix(int key) {
    int h = key * 0x9E3779B9;
    return h ^ (h >>> 16);
  }
}
