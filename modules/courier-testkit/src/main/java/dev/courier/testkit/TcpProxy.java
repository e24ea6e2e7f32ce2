package dev.courier.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP address that can be moved to another server, as a DNS name or a virtual IP moves to the new
 * primary in a database failover: clients keep their settings, connections open at the move are
 * cut, new ones reach the new target.
 *
 * <p>It can also {@linkplain #partition() partition} its clients from the server, as a network
 * partition does: connections stay open, nothing crosses in either direction and new connections
 * get no answer, until {@linkplain #heal() healed}, when what was held back is delivered, as TCP
 * delivers its retransmissions. Neither side sees an error: only its own timeouts tell it.
 */
public final class TcpProxy implements AutoCloseable {

  private final ServerSocket server;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile int target;
  private final Object gate = new Object();
  private boolean partitioned;

  private TcpProxy(int target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "tcp-proxy-" + server.getLocalPort());
    accept.setDaemon(true);
    accept.start();
  }

  /** A proxy on a free loopback port, forwarding to {@code localhost:targetPort}. */
  public static TcpProxy to(int targetPort) {
    try {
      return new TcpProxy(targetPort);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a proxy port", e);
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Where new connections go. */
  public int target() {
    return target;
  }

  /** New connections go to {@code targetPort}; connections open now are cut. */
  public void moveTo(int targetPort) {
    this.target = targetPort;
    cutAll();
  }

  /** Cuts every open connection (both sides see a reset or an end of stream). */
  public void cutAll() {
    for (Socket s : open) {
      closeQuietly(s);
    }
    open.clear();
  }

  /**
   * From now on nothing crosses: open connections hang, new ones are accepted by the operating
   * system but reach nothing.
   */
  public void partition() {
    synchronized (gate) {
      partitioned = true;
    }
  }

  /** What was held back is delivered, and new connections reach the server again. */
  public void heal() {
    synchronized (gate) {
      partitioned = false;
      gate.notifyAll();
    }
  }

  private void awaitConnected() throws IOException {
    synchronized (gate) {
      while (partitioned) {
        try {
          gate.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while partitioned", e);
        }
      }
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Thread connect = new Thread(() -> connect(client), "tcp-proxy-connect");
        connect.setDaemon(true);
        connect.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void connect(Socket client) {
    open.add(client);
    try {
      awaitConnected();
      Socket upstream;
      try {
        upstream = new Socket(InetAddress.getLoopbackAddress(), target);
      } catch (IOException refused) {
        closeQuietly(client); // the target is down: the client sees its connection end
        open.remove(client);
        return;
      }
      open.add(upstream);
      pump(client, upstream);
      pump(upstream, client);
    } catch (IOException e) {
      closeQuietly(client);
      open.remove(client);
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                  awaitConnected();
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // cut or closed by either side
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "tcp-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // already closed
    }
    cutAll();
  }
}
