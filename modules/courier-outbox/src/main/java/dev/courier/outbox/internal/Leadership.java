package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of the relays sharing a slot may stream: the one holding a session-level PostgreSQL
 * advisory lock, keyed by the slot's name, on a connection of its own. PostgreSQL itself is the
 * arbiter, so no other coordination service is needed.
 *
 * <ul>
 *   <li>A killed leader's connection closes and the lock is free at once.
 *   <li>A frozen leader stops renewing; PostgreSQL ends its session after {@code
 *       outbox.leader.lease.ms} ({@code idle_session_timeout}), which frees the lock.
 *   <li>A leader trusts its lease for half of that since the last renewal it saw succeed, and
 *       publishes nothing once it lapsed: it stops before PostgreSQL can hand the lock to another.
 * </ul>
 *
 * <p>Each acquisition starts a term with the next incarnation, recorded with its holder in {@code
 * courier_outbox_relay_terms}; the records of a term carry it in the {@code courier.relay} header.
 */
public final class Leadership implements AutoCloseable {

  /** What a renewal found. */
  public enum Renewal {
    /** This relay leads: its lease renewed. */
    HELD,
    /**
     * This relay leads again after its lock's connection was lost, in a new term: what it had in
     * flight belongs to the former term and must not be published (another relay may have led in
     * between and published the same events and later ones).
     */
    REACQUIRED,
    /** PostgreSQL cannot be reached: nobody can take the lock over from it meanwhile. */
    UNREACHABLE,
    /** Another relay holds the lock now. */
    TAKEN
  }

  private static final Logger LOG = LoggerFactory.getLogger(Leadership.class);

  private static final String TRY_LOCK =
      "SELECT pg_try_advisory_lock(hashtextextended('courier.outbox.relay/' || ?, 0))";

  /**
   * The lock, waited for up to the session's {@code lock_timeout}: granted the moment the holder's
   * session ends, where asking again every poll interval found it free half an interval late on
   * average.
   */
  private static final String WAIT_LOCK =
      "SELECT pg_advisory_lock(hashtextextended('courier.outbox.relay/' || ?, 0)) IS NULL";

  /** lock_not_available: the wait for the lock ran out. */
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  /** The longest one wait for the lock lasts, so closing never waits long behind it. */
  private static final Duration MAX_LOCK_WAIT = Duration.ofSeconds(1);

  private static final String NEXT_TERM =
      "INSERT INTO courier_outbox_relay_terms (slot_name, incarnation, holder)"
          + " SELECT ?, coalesce(max(incarnation), 0) + 1, ? FROM courier_outbox_relay_terms"
          + " WHERE slot_name = ? RETURNING incarnation";

  /** How long close waits for a call still connecting to PostgreSQL before it leaves it behind. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  private final PostgresAccess postgres;
  private final String slot;
  private final String holder;
  private final long leaseNanos;

  /**
   * Guards the lock's connection. Not {@code synchronized}: close must not wait behind a renewal
   * stuck on a server that answers nothing.
   */
  private final ReentrantLock lock = new ReentrantLock();

  private volatile Connection connection;
  private volatile boolean closed;
  private volatile long incarnation;
  private volatile byte[] header = new byte[0];
  private volatile boolean held;
  private volatile long confirmedNanos;
  private volatile boolean taken;

  public Leadership(OutboxRelayConfig config, PostgresAccess postgres) {
    this.postgres = postgres;
    this.slot = config.getString(OutboxRelayConfig.SLOT_NAME);
    this.holder = config.getString(OutboxRelayConfig.RELAY_NAME) + "@" + host() + "/" + pid();
    this.leaseNanos =
        TimeUnit.MILLISECONDS.toNanos(config.getLong(OutboxRelayConfig.LEADER_LEASE_MS));
  }

  /** Tries once to lead; true when this relay leads now (a new term began, or it already led). */
  public boolean tryAcquire() throws Outage {
    lock.lock();
    try {
      return acquire(null);
    } finally {
      lock.unlock();
    }
  }

  /**
   * As {@link #tryAcquire()}, but waits up to {@code max} (at most a second) for the lock: a
   * standby leads as soon as PostgreSQL ends the leader's session.
   */
  public boolean acquireWithin(Duration max) throws Outage {
    lock.lock();
    try {
      return acquire(max.compareTo(MAX_LOCK_WAIT) > 0 ? MAX_LOCK_WAIT : max);
    } finally {
      lock.unlock();
    }
  }

  /**
   * @param wait how long to wait for the lock, or null to only try
   */
  private boolean acquire(Duration wait) throws Outage {
    if (held) {
      return true;
    }
    if (closed) {
      return false;
    }
    boolean reused = connection != null;
    try {
      return attempt(wait);
    } catch (SQLException e) {
      drop();
      if (!reused) {
        throw postgres.classify(e);
      }
    }
    // A standby's idle connection may have been ended meanwhile (idle_session_timeout, a restart
    // of PostgreSQL): one more try on a new one tells that from an outage.
    try {
      return attempt(wait);
    } catch (SQLException e) {
      drop();
      throw postgres.classify(e);
    }
  }

  private boolean attempt(Duration wait) throws SQLException, Outage {
    long sent = System.nanoTime();
    if (connection == null) {
      // Reads give up after one lease: a renewal stuck on a silent server ends, and with it the
      // hold it has on this object.
      connection = postgres.connect(Duration.ofNanos(leaseNanos));
      bound(connection);
    }
    if (closed) {
      drop();
      return false;
    }
    if (!(wait == null ? tryLock() : waitLock(wait))) {
      return false;
    }
    try (PreparedStatement ps = connection.prepareStatement(NEXT_TERM)) {
      ps.setString(1, slot);
      ps.setString(2, holder);
      ps.setString(3, slot);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        incarnation = rs.getLong(1);
      }
    }
    header = (holder + "#" + incarnation).getBytes(StandardCharsets.UTF_8);
    confirmedNanos = sent;
    held = true;
    taken = false;
    LOG.info("leading slot {} as {} (incarnation {})", slot, holder, incarnation);
    return true;
  }

  private boolean tryLock() throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(TRY_LOCK)) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private boolean waitLock(Duration wait) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute("SET lock_timeout = " + Math.max(1, wait.toMillis()));
    }
    try (PreparedStatement ps = connection.prepareStatement(WAIT_LOCK)) {
      ps.setString(1, slot);
      ps.executeQuery().close();
      return true;
    } catch (SQLException e) {
      if (LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
        return false; // still another's
      }
      throw e;
    }
  }

  /** PostgreSQL ends the session, and so frees the lock, when the holder stops renewing it. */
  private void bound(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SET idle_session_timeout = " + TimeUnit.NANOSECONDS.toMillis(leaseNanos));
    } catch (SQLException e) {
      if (!"42704".equals(e.getSQLState())) {
        throw e;
      }
      LOG.warn(
          "PostgreSQL before 14 has no idle_session_timeout: a frozen leader keeps the lock until"
              + " its connection dies, so a standby cannot take over from it until then");
    }
  }

  /** A round trip on the lock's connection; after a lost connection, an attempt to lead again. */
  public Renewal renew() {
    lock.lock();
    try {
      return renewHeld();
    } finally {
      lock.unlock();
    }
  }

  private Renewal renewHeld() {
    if (held) {
      long sent = System.nanoTime();
      try (Statement s = connection.createStatement()) {
        s.setQueryTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toSeconds(leaseNanos / 2)));
        s.execute("SELECT 1");
        confirmedNanos = sent;
        return Renewal.HELD;
      } catch (SQLException e) {
        LOG.warn(
            "lost the leadership's connection for slot {} (incarnation {}): {}",
            slot,
            incarnation,
            e.getMessage());
        drop();
      }
    }
    if (closed) {
      return Renewal.UNREACHABLE;
    }
    try {
      long former = incarnation;
      boolean leads = acquire(null);
      taken = !leads;
      if (leads) {
        LOG.warn(
            "leading slot {} again in a new term (incarnation {} after {}): what was in flight"
                + " is not published, the relay starts again from the stored position",
            slot,
            incarnation,
            former);
      }
      return leads ? Renewal.REACQUIRED : Renewal.TAKEN;
    } catch (Outage e) {
      return Renewal.UNREACHABLE;
    } catch (RuntimeException e) {
      return Renewal.UNREACHABLE; // a setting PostgreSQL now refuses is the supervisor's to name
    }
  }

  /** True while this relay leads and its lease, by its own clock, has not lapsed. */
  public boolean valid() {
    return held && System.nanoTime() - confirmedNanos < leaseNanos / 2;
  }

  /**
   * True while this relay leads in term {@code incarnation} and its lease has not lapsed: a batch
   * begun in an earlier term is never published in a later one, whoever led in between.
   */
  public boolean validIn(long term) {
    return valid() && incarnation == term;
  }

  /**
   * Waits up to {@code max} for a valid lease (a renewal in flight, PostgreSQL back after a short
   * outage); false once it is known to be another relay's, or the wait ran out.
   */
  public boolean awaitValid(Duration max) throws InterruptedException {
    return awaitValid(max, -1);
  }

  /**
   * As {@link #awaitValid(Duration)}, in term {@code term} ({@code -1}: any): false at once when a
   * newer term began.
   */
  public boolean awaitValid(Duration max, long term) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (!valid()) {
      if (taken || (term >= 0 && incarnation != term) || System.nanoTime() >= deadline) {
        return false;
      }
      TimeUnit.MILLISECONDS.sleep(10);
    }
    return term < 0 || incarnation == term;
  }

  public boolean held() {
    return held;
  }

  public long incarnation() {
    return incarnation;
  }

  /** The {@code courier.relay} header's value for this term: holder and incarnation. */
  public byte[] header() {
    return header;
  }

  public String holder() {
    return holder;
  }

  /**
   * Gives the leadership up: the lock goes with the connection. Does not wait behind a renewal
   * stuck on a server that answers nothing: that call's connection is aborted, which ends it.
   */
  @Override
  public void close() {
    closed = true;
    boolean locked = lock.tryLock();
    try {
      if (!locked) {
        Connection stuck = connection;
        if (stuck != null) {
          abort(stuck);
        }
        locked = lock.tryLock(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      }
      if (!locked) {
        LOG.warn(
            "leadership of slot {}: a call still connecting to PostgreSQL at {}; it gives the"
                + " lock up when it returns",
            slot,
            postgres.where());
        return;
      }
      if (held) {
        LOG.info("leadership of slot {} given up (incarnation {})", slot, incarnation);
      }
      drop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (locked) {
        lock.unlock();
      }
    }
  }

  /** Closes the connection's socket from another thread: a read blocked on it fails at once. */
  private static void abort(Connection c) {
    try {
      c.abort(
          r -> {
            Thread t = new Thread(r, "courier-outbox-leadership-abort");
            t.setDaemon(true);
            t.start();
          });
    } catch (SQLException e) {
      LOG.debug("aborting the leadership's connection: {}", e.toString());
    }
  }

  private void drop() {
    held = false;
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        LOG.debug("closing the leadership's connection: {}", e.toString());
      }
      connection = null;
    }
  }

  private static String host() {
    String pod = System.getenv("HOSTNAME");
    if (pod != null && !pod.isBlank()) {
      return pod;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown-host";
    }
  }

  private static long pid() {
    return ProcessHandle.current().pid();
  }
}
