package dev.courier.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Requests written byte for byte to a service's HTTP port (methods, versions and paths an HTTP
 * client library refuses to send), and the routing rules every Courier service must keep: exact
 * paths, GET and HEAD only (405 with {@code Allow}), 404 for other paths, 400 for bad encoding, 505
 * for an HTTP version other than 1.x, never a 500.
 */
public final class RawHttp {

  /** The status and everything after the status line (headers and body). */
  public record Reply(int status, String rest) {}

  private RawHttp() {}

  public static Reply send(int port, String requestLine) {
    try (Socket socket = new Socket("localhost", port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          (requestLine + "\r\nHost: localhost\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      String status = in.readLine();
      StringBuilder rest = new StringBuilder();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        rest.append(line).append('\n');
      }
      int code = status == null || status.isEmpty() ? -1 : Integer.parseInt(status.split(" ")[1]);
      return new Reply(code, rest.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("request " + requestLine + " to port " + port, e);
    }
  }

  /**
   * Checks the rules on a running service whose exact GET routes are {@code routes} (a route ending
   * in {@code /} takes a parameter after it); returns what broke them, empty when nothing did.
   * Includes a small seeded fuzz of paths.
   */
  public static List<String> ruleViolations(int port, Set<String> routes) {
    List<String> problems = new ArrayList<>();
    for (String route : routes) {
      if (route.endsWith("/")) {
        continue; // a route with a parameter after it: checked by the caller with real values
      }
      int get = send(port, "GET " + route + " HTTP/1.1").status();
      expect(problems, "GET " + route, get, 200, 503);
      expect(problems, "HEAD " + route, send(port, "HEAD " + route + " HTTP/1.1").status(), get);
      for (String method : List.of("PUT", "POST", "DELETE", "PATCH")) {
        Reply r = send(port, method + " " + route + " HTTP/1.1");
        expect(problems, method + " " + route, r.status(), 405);
        if (!r.rest().toLowerCase().contains("allow: get, head")) {
          problems.add(method + " " + route + ": no 'Allow: GET, HEAD' header");
        }
      }
      for (String lookAlike : List.of(route + "z", route + "/x", route + "-foo/bar")) {
        if (!routes.contains(lookAlike)) {
          expect(problems, "GET " + lookAlike, status(port, lookAlike), 404);
        }
      }
    }
    expect(
        problems,
        "GET /health/<10 KiB>",
        status(port, "/health/" + "a".repeat(10 * 1024)),
        400,
        404,
        414);
    expect(problems, "GET /health HTTP/9.9", send(port, "GET /health HTTP/9.9").status(), 505, 400);
    expect(problems, "GET /%E0%A4%A", status(port, "/%E0%A4%A"), 400);
    Random random = new Random(20261201L);
    String alphabet = "/abcdefghilmnorstuvy0189-_.~%+:@!$&'()*,;=";
    for (int i = 0; i < 60; i++) {
      StringBuilder path = new StringBuilder("/");
      for (int k = random.nextInt(24); k > 0; k--) {
        path.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String p = path.toString();
      int s = status(port, p);
      if (s == 500 || s == -1 || (s == 200 && !routes.contains(p) && !parameterRoute(routes, p))) {
        problems.add("GET " + p + ": " + s);
      }
    }
    return problems;
  }

  private static boolean parameterRoute(Set<String> routes, String path) {
    return routes.stream().anyMatch(r -> r.endsWith("/") && path.startsWith(r));
  }

  private static int status(int port, String path) {
    return send(port, "GET " + path + " HTTP/1.1").status();
  }

  private static void expect(List<String> problems, String what, int actual, int... allowed) {
    for (int a : allowed) {
      if (a == actual) {
        return;
      }
    }
    problems.add(what + ": " + actual + ", expected one of " + java.util.Arrays.toString(allowed));
  }
}
