// ember::Value: the nested containers behind state dicts and ember::save.
#include <gtest/gtest.h>

#include "ember/ops.h"
#include "ember/value.h"

using ember::Value;

TEST(Value, KindsAndAccessors) {
  EXPECT_TRUE(Value().is_none());
  EXPECT_EQ(Value(3).to_int(), 3);
  EXPECT_EQ(Value(3).to_double(), 3.0);  // an int reads as a float, as Python's float()
  EXPECT_THROW(Value(2.5).to_int(), ember::TypeError);
  EXPECT_EQ(Value("lr").to_string(), "lr");
  EXPECT_TRUE(Value::tuple({0.9, 0.999}).is_sequence());
  EXPECT_NE(Value::tuple({1}), Value::list({1}));  // a tuple is not a list
}

TEST(Value, DictKeepsOrderAndKeyKinds) {
  Value d = Value::dict();
  d.set("lr", 0.1);
  d.set(0, "int key");
  d["momentum"] = 0.9;
  d.set("lr", 0.2);  // replaced in place, order kept
  ASSERT_EQ(d.entries().size(), 3u);
  EXPECT_EQ(d.entries()[0].first, Value("lr"));
  EXPECT_EQ(d.at("lr").to_double(), 0.2);
  EXPECT_EQ(d.at(0).to_string(), "int key");
  EXPECT_FALSE(d.contains("0"));  // a string key never equals an int key
  EXPECT_THROW(d.at("beta"), ember::IndexError);
  EXPECT_EQ(d.repr(), "{'lr': 0.2, 0: 'int key', 'momentum': 0.9}");
}

TEST(Value, TensorsCompareByIdentity) {
  ember::Tensor a = ember::zeros({2, 3});
  EXPECT_EQ(Value(a), Value(a));
  EXPECT_NE(Value(a), Value(a.clone()));
  EXPECT_EQ(Value::tuple({Value(a), 1e-8}).repr(), "(Tensor(shape=[2, 3], dtype=float32), 1e-08)");
}
