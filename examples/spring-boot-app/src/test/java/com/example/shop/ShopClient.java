package com.example.shop;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** The shop's HTTP API and Actuator, as a client sees them. */
final class ShopClient {

  private final HttpClient http = HttpClient.newHttpClient();
  private final int port;

  ShopClient(int port) {
    this.port = port;
  }

  int placeOrder(String id, String account, long amount) throws IOException, InterruptedException {
    String body =
        "{\"id\":\"" + id + "\",\"account\":\"" + account + "\",\"amount\":" + amount + "}";
    return http.send(
            HttpRequest.newBuilder(uri("/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }

  /** The body at that path, or "" while nothing listens there. */
  String get(String path) throws InterruptedException {
    try {
      return http.send(
              HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      return "";
    }
  }

  private URI uri(String path) {
    return URI.create("http://localhost:" + port + path);
  }
}
