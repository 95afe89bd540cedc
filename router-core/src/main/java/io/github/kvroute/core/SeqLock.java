package io.github.kvroute.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A sequence lock's version, for books whose writers already hold their owner's monitor: a writer
 * makes it odd before it changes anything a reader copies ({@link #beginWrite}) and even again after
 * ({@link #endWrite}); a reader copies between {@link #beginRead} and {@link #unchanged}, and keeps
 * the copy only if both saw the same even number.
 *
 * <p>Thread-safety: thread-safe for readers; writers must be serialized by the owner's lock, since
 * a write reads the version plainly.
 */
final class SeqLock {
  private static final VarHandle VERSION;

  static {
    try {
      VERSION = MethodHandles.lookup().findVarHandle(SeqLock.class, "version", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * Even when the books are quiet, odd while a writer changes them: written under the owner's lock,
   * read without it, always through {@link #VERSION}.
   */
  private long version;

  /** {@return the version before a copy (an acquire load): odd while a writer is at work} */
  long beginRead() {
    return (long) VERSION.getAcquire(this);
  }

  /** Whether no writer ran since {@link #beginRead} returned {@code before}, checked after the copy. */
  boolean unchanged(long before) {
    // the copy's loads must not move after the second read of the version
    VarHandle.loadLoadFence();
    return (long) VERSION.getOpaque(this) == before;
  }

  /** Makes the version odd: readers that overlap what follows discard their copies. */
  void beginWrite() {
    VERSION.setOpaque(this, version + 1);
    // the changes that follow must not become visible before the odd version
    VarHandle.storeStoreFence();
  }

  /** Makes the version even again, after (release) every change. */
  void endWrite() {
    VERSION.setRelease(this, version + 1);
  }
}
