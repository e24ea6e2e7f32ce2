package dev.courier.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.internal.HttpEndpoints.Response;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The routing rules every Courier service's HTTP side follows, over a real socket. */
class HttpEndpointsTest {

  private HttpEndpoints endpoints;

  @BeforeEach
  void start() throws Exception {
    endpoints =
        HttpEndpoints.builder()
            .get("/health", () -> Response.json(200, "{\"status\":\"UP\"}"))
            .get("/metrics", () -> Response.streamed(200, "text/plain", out -> out.write("m 1\n")))
            .getWithParameter(
                "/v1/groups/", g -> Response.json(200, "{\"group\":\"" + Json.escape(g) + "\"}"))
            .start(0);
  }

  @AfterEach
  void stop() {
    endpoints.close();
  }

  /** The status line and body of one raw request. */
  private String[] request(String requestLine) throws Exception {
    try (Socket socket = new Socket("localhost", endpoints.port())) {
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
      return new String[] {status == null ? "" : status, rest.toString()};
    }
  }

  private int status(String requestLine) throws Exception {
    String line = request(requestLine)[0];
    return line.isEmpty() ? -1 : Integer.parseInt(line.split(" ")[1]);
  }

  @Test
  void exactPathsAnswerAndTheirLookAlikesDoNot() throws Exception {
    assertThat(status("GET /health HTTP/1.1")).isEqualTo(200);
    assertThat(status("HEAD /health HTTP/1.1")).isEqualTo(200);
    assertThat(status("GET /healthz HTTP/1.1")).isEqualTo(404);
    assertThat(status("GET /health/x HTTP/1.1")).isEqualTo(404);
    assertThat(status("GET /health/" + "a".repeat(10 * 1024) + " HTTP/1.1")).isIn(400, 414);
    assertThat(status("GET /metrics-foo/bar HTTP/1.1")).isEqualTo(404);
    assertThat(status("GET /metrics HTTP/1.1")).isEqualTo(200);
    assertThat(request("GET /metrics HTTP/1.1")[1]).contains("m 1");
    assertThat(status("GET /v1/groups/g-1 HTTP/1.1")).isEqualTo(200);
    assertThat(status("GET /v1/groups/ HTTP/1.1")).isEqualTo(404);
    assertThat(status("GET /v1/groups/a/b HTTP/1.1")).isEqualTo(404);
  }

  @Test
  void onlyGetAndHeadAreAllowed() throws Exception {
    for (String method : new String[] {"PUT", "POST", "DELETE", "PATCH", "OPTIONS"}) {
      String[] answer = request(method + " /health HTTP/1.1");
      assertThat(answer[0]).as(method).contains(" 405 ");
      assertThat(answer[1]).as(method).containsIgnoringCase("allow: GET, HEAD");
    }
    assertThat(status("DELETE /v1/groups/g-exists HTTP/1.1")).isEqualTo(405);
  }

  @Test
  void badEncodingIs400AndAnUnknownVersion505() throws Exception {
    assertThat(status("GET /v1/groups/%E0%A4%A HTTP/1.1")).isEqualTo(400);
    assertThat(status("GET /v1/groups/%C3%28 HTTP/1.1")).isEqualTo(400);
    assertThat(status("GET /health HTTP/9.9")).isIn(400, 505);
  }

  @Test
  void aDecodedParameterReachesTheRoute() throws Exception {
    assertThat(request("GET /v1/groups/caf%C3%A9%20x HTTP/1.1")[1]).contains("café x");
  }

  /** Random paths: only the exact routes answer 200, nothing answers 500. */
  @Test
  void fuzzedPathsNeverReachARouteByAccidentOrFail() throws Exception {
    Random random = new Random(20261201L);
    String alphabet = "/abcdefghimnorstuvxyz0189-_.~%+:@!$&'()*,;=";
    for (int i = 0; i < 300; i++) {
      StringBuilder path = new StringBuilder("/");
      int length = random.nextInt(30);
      for (int k = 0; k < length; k++) {
        path.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String p = path.toString();
      int status = status("GET " + p + " HTTP/1.1");
      assertThat(status).as(p).isNotEqualTo(500).isNotEqualTo(-1);
      if (status == 200) {
        assertThat(p.equals("/health") || p.equals("/metrics") || p.startsWith("/v1/groups/"))
            .as(p)
            .isTrue();
      }
    }
  }
}
