package com.example.shop;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class OrderController {

  private final Orders orders;

  public OrderController(Orders orders) {
    this.orders = orders;
  }

  public record OrderRequest(String id, String account, long amount) {}

  @PostMapping("/orders")
  public ResponseEntity<Void> place(@RequestBody OrderRequest request) {
    orders.place(request.id(), request.account(), request.amount());
    return ResponseEntity.status(HttpStatus.CREATED).build();
  }

  @ExceptionHandler(IllegalArgumentException.class)
  public ResponseEntity<String> refused(IllegalArgumentException e) {
    return ResponseEntity.badRequest().body(e.getMessage());
  }
}
